import { spawn } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import { deepEqual } from '../client/json.js';
import type { KubeObject } from '../client/types.js';
import { parseManagerOptions } from '../runtime/options.js';

/**
 * Chart tests' plumbing: running helm (lint, template, install, uninstall) and reading what it
 * renders. lib-common does not depend on @stackops/kube-env at runtime, so the helm binary is
 * passed in (tests pass kube-env's `cacheLayout().bin/helm`) or taken from $HELM_BINARY.
 */

/** An RBAC rule as a chart renders it. */
export interface RenderedRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** One document of `helm template`'s output. */
export interface RenderedObject extends KubeObject {
  rules?: RenderedRule[];
  spec?: Record<string, unknown>;
}

/** The fields of a rendered container that chart tests look at. */
export interface RenderedContainer {
  name?: string;
  image: string;
  args: string[];
  env: { name: string; value?: string; valueFrom?: unknown }[];
  securityContext: Record<string, unknown>;
  livenessProbe: unknown;
  readinessProbe: unknown;
  [key: string]: unknown;
}

/** The container securityContext every stackops operator chart renders. */
export const HARDENED_CONTAINER_SECURITY_CONTEXT = {
  runAsNonRoot: true,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
} as const;

/**
 * The checks every operator chart's Deployment container passes, as a list of problems (empty when
 * it is fine): the hardened securityContext, `/healthz` liveness and `/readyz` readiness probes, and
 * arguments the operator's own flag parser accepts, serving metrics on :8080 and probes on :8081 on
 * every interface (what kubelet's probes and scrapers reach).
 */
export function operatorContainerProblems(container: RenderedContainer): string[] {
  const problems: string[] = [];
  if (!deepEqual(container.securityContext, HARDENED_CONTAINER_SECURITY_CONTEXT))
    problems.push(`securityContext is not the hardened one: ${JSON.stringify(container.securityContext)}`);
  const probePath = (p: unknown) => (p as { httpGet?: { path?: string } } | undefined)?.httpGet?.path;
  if (probePath(container.livenessProbe) !== '/healthz') problems.push('livenessProbe is not GET /healthz');
  if (probePath(container.readinessProbe) !== '/readyz') problems.push('readinessProbe is not GET /readyz');
  try {
    const flags = parseManagerOptions(container.args, {});
    if (flags.metricsBindAddress !== ':8080')
      problems.push(`metrics bind ${flags.metricsBindAddress}, not :8080`);
    if (flags.healthProbeBindAddress !== ':8081')
      problems.push(`health probes bind ${flags.healthProbeBindAddress}, not :8081`);
  } catch (err) {
    problems.push(`the operator refuses its arguments: ${err instanceof Error ? err.message : String(err)}`);
  }
  return problems;
}

/** What helm says when values break a chart's values.schema.json. */
export const VALUES_SCHEMA_REFUSAL = /values don't meet the specifications of the schema/;

/** `--set a=b --set c=d` for each of `set`. */
export const setFlags = (set: readonly string[] = []): string[] => set.flatMap((s) => ['--set', s]);

/** The objects of a multi-document YAML stream (helm's output), empty documents dropped. */
export function parseRendered(yamlText: string): RenderedObject[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as RenderedObject | null)
    .filter((o): o is RenderedObject => o !== null);
}

/** The rendered objects of `kind` (and `name`, when given), in rendering order. */
export function findRendered(docs: readonly RenderedObject[], kind: string, name?: string): RenderedObject[] {
  return docs.filter((o) => o.kind === kind && (name === undefined || o.metadata?.name === name));
}

/** The first container of the (named, else first) rendered Deployment; throws when there is none. */
export function renderedContainer(
  docs: readonly RenderedObject[],
  deploymentName?: string,
): RenderedContainer {
  const [deployment] = findRendered(docs, 'Deployment', deploymentName);
  const containers = (deployment?.spec as { template?: { spec?: { containers?: RenderedContainer[] } } })
    ?.template?.spec?.containers;
  const container = containers?.[0];
  if (!container) throw new Error(`no container in the rendered Deployment ${deploymentName ?? ''}`.trim());
  return container;
}

/**
 * What an operator chart must render for its replicas (ADR 0041), as problems (empty when right):
 * `single` (replicas 1) has no PodDisruptionBudget and no affinity; `replicated` (replicas > 1) a
 * budget with `maxUnavailable: 1` over the Deployment's pods and a preferred pod anti-affinity on
 * `kubernetes.io/hostname` over the same pods.
 */
export function replicaSpreadProblems(
  single: readonly RenderedObject[],
  replicated: readonly RenderedObject[],
): string[] {
  const problems: string[] = [];
  const podSpec = (docs: readonly RenderedObject[]) =>
    (
      findRendered(docs, 'Deployment')[0]?.spec as
        | { template?: { spec?: Record<string, unknown> } }
        | undefined
    )?.template?.spec ?? {};
  if (findRendered(single, 'PodDisruptionBudget').length > 0)
    problems.push('a PodDisruptionBudget at one replica');
  if (podSpec(single)['affinity'] !== undefined) problems.push('an affinity at one replica');
  const selector = (findRendered(replicated, 'Deployment')[0]?.spec as { selector?: unknown } | undefined)
    ?.selector;
  const pdbs = findRendered(replicated, 'PodDisruptionBudget');
  const pdb = pdbs[0]?.spec as { maxUnavailable?: unknown; selector?: unknown } | undefined;
  if (
    pdbs.length !== 1 ||
    pdb?.maxUnavailable !== 1 ||
    JSON.stringify(pdb.selector) !== JSON.stringify(selector)
  )
    problems.push(`replicated: PodDisruptionBudget ${JSON.stringify(pdbs.map((p) => p.spec))}`);
  const affinity = podSpec(replicated)['affinity'] as
    | {
        podAntiAffinity?: {
          preferredDuringSchedulingIgnoredDuringExecution?: { podAffinityTerm?: Record<string, unknown> }[];
        };
      }
    | undefined;
  const term =
    affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.[0]?.podAffinityTerm;
  if (
    term?.['topologyKey'] !== 'kubernetes.io/hostname' ||
    JSON.stringify(term['labelSelector']) !== JSON.stringify(selector)
  )
    problems.push(`replicated: affinity ${JSON.stringify(affinity)}`);
  return problems;
}

/**
 * The name helm charts' usual `fullname` helper gives a release's objects (and so its
 * ServiceAccount): the release name when it already contains the chart name, else
 * `<release>-<chart>`, cut to 63 characters and one trailing dash dropped (`trunc 63 | trimSuffix "-"`).
 */
export function chartFullname(release: string, chartName: string): string {
  const full = release.includes(chartName) ? release : `${release}-${chartName}`;
  return full.slice(0, 63).replace(/-$/, '');
}

/** How much of a failed command's output its error keeps (the end, where the cause usually is). */
const ERROR_OUTPUT_TAIL_CHARS = 20_000;

export interface RunCommandOptions {
  /** Written to its stdin, which is then closed. */
  input?: string;
  /** Its whole environment (not merged); `process.env` when absent. */
  env?: NodeJS.ProcessEnv;
  /** SIGTERM after this long; the promise then rejects naming the signal. */
  timeoutMs?: number;
}

/**
 * Runs a command-line tool (helm, kubectl, pip) without blocking the event loop, so an operator
 * under test in the same process keeps reconciling while it waits. Resolves its stdout; rejects
 * with the tail of its stderr (of its stdout when stderr is empty) in the message. No output limit:
 * `helm template` and pip print a lot.
 */
export function runCommand(
  binary: string,
  args: readonly string[],
  opts: RunCommandOptions = {},
): Promise<string> {
  const name = binary.split('/').pop() ?? binary;
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { env: opts.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer =
      opts.timeoutMs === undefined ? undefined : setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${name} ${args.join(' ')} failed: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) {
        resolve(stdout);
        return;
      }
      const tail = (stderr.trim() || stdout.trim()).slice(-ERROR_OUTPUT_TAIL_CHARS);
      const how = signal
        ? ` (${signal}${opts.timeoutMs === undefined ? '' : ` after ${opts.timeoutMs} ms`})`
        : '';
      reject(new Error(`${name} ${args.join(' ')} failed${how}: ${tail || `exit ${code}`}`));
    });
    // a tool that exits without reading its stdin must not fail the run with EPIPE
    child.stdin.on('error', () => {});
    child.stdin.end(opts.input);
  });
}

/** helm's path: the one given, else $HELM_BINARY. */
export function helmBinary(binary?: string): string {
  const path = binary ?? process.env['HELM_BINARY'];
  if (!path)
    throw new Error("helm binary unknown: pass its path (kube-env's cacheLayout().bin) or set HELM_BINARY");
  return path;
}

export interface HelmTemplateOptions {
  /** The release name the chart renders with. */
  release: string;
  namespace: string;
  /** `--set` values, e.g. `replicas=2`. */
  set?: readonly string[];
  /** `--kube-version`; helm's own default otherwise. */
  kubeVersion?: string;
}

export interface HelmInstallOptions {
  namespace: string;
  set?: readonly string[];
  /** When given, `--wait --timeout <waitTimeout>` (e.g. `90s`). */
  waitTimeout?: string;
}

export interface Helm {
  /** helm with `args`; resolves its stdout, rejects with its stderr in the message. */
  run(args: readonly string[]): Promise<string>;
  /** `helm lint --strict` with `set`; resolves the report. */
  lint(chartDir: string, set?: readonly string[]): Promise<string>;
  /** `helm template`, parsed. */
  template(chartDir: string, opts: HelmTemplateOptions): Promise<RenderedObject[]>;
  install(release: string, chartDir: string, opts: HelmInstallOptions): Promise<string>;
  uninstall(release: string, namespace: string): Promise<string>;
}

/**
 * helm against the control plane of $KUBECONFIG. It runs without blocking the event loop: an
 * operator under test in the same process keeps reconciling while helm waits.
 */
export function createHelm(binary?: string): Helm {
  const bin = helmBinary(binary);
  const run = (args: readonly string[]): Promise<string> => runCommand(bin, args);
  return {
    run,
    lint: (chartDir, set) => run(['lint', '--strict', chartDir, ...setFlags(set)]),
    template: async (chartDir, opts) =>
      parseRendered(
        await run([
          'template',
          opts.release,
          chartDir,
          '--namespace',
          opts.namespace,
          ...(opts.kubeVersion ? ['--kube-version', opts.kubeVersion] : []),
          ...setFlags(opts.set),
        ]),
      ),
    install: (release, chartDir, opts) =>
      run([
        'install',
        release,
        chartDir,
        '--namespace',
        opts.namespace,
        ...setFlags(opts.set),
        ...(opts.waitTimeout ? ['--wait', '--timeout', opts.waitTimeout] : []),
      ]),
    uninstall: (release, namespace) => run(['uninstall', release, '--namespace', namespace]),
  };
}
