import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stackopsCacheDir } from '@stackops/kube-env';
import type { SubjectSpec } from './subject.js';
import { withUpstreamInfra } from './upstream-infra.js';
import type { OperatorDir, Workload } from './workloads.js';

/**
 * Upstream's Go operators, run by the bench beside ours on the same workloads (issue 33): the
 * binaries tools/bench/go-side-by-side.sh builds from their sources at pinned commits, cached
 * outside the repository by commit. `auto` builds them first when the sources are there (a stored
 * snapshot of each repository and a Go toolchain), else says why the Go column is left out.
 */
export type GoMode = 'auto' | 'off' | 'only';

export interface GoSide {
  spec: SubjectSpec;
  /** The workload as the Go operator needs it (keystone: mariadb-operator and infra-operator played). */
  workload: (w: Workload) => Workload;
}

export interface GoSides {
  sides: Partial<Record<OperatorDir, GoSide>>;
  /** One line for the report: what ran as the Go column, or why there is none and how to get it. */
  note: string;
}

const repoRoot = resolve(import.meta.dirname, '../../..');
const script = join(repoRoot, 'tools/bench/go-side-by-side.sh');

/** KEY=value lines of a shell env file (no expansion; comments and blank lines skipped). */
function envFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((l) => /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => [m[1] ?? '', (m[2] ?? '').replace(/^["']|["']$/g, '')]),
  );
}

interface Pin {
  dir: OperatorDir;
  name: string;
  /** The stored snapshot: owner/name. */
  repo: string;
  commit: string;
}

function pins(): Pin[] {
  const keystone = envFile(join(repoRoot, 'tools/upstream-suites/upstream.env'))['KEYSTONE_OPERATOR_COMMIT'];
  const cnao = envFile(join(repoRoot, 'tools/bench/go-operators.env'));
  if (!keystone || !cnao['CNAO_COMMIT'] || !cnao['CNAO_REPO'])
    throw new Error(
      'tools/upstream-suites/upstream.env or tools/bench/go-operators.env lacks a pinned commit',
    );
  return [
    {
      dir: 'keystone',
      name: 'keystone-operator',
      repo: 'openstack-k8s-operators/keystone-operator',
      commit: keystone,
    },
    {
      dir: 'network-addons',
      name: 'cluster-network-addons-operator',
      repo: cnao['CNAO_REPO'],
      commit: cnao['CNAO_COMMIT'],
    },
  ];
}

const cacheDir = () => process.env['UPSTREAM_SWITCH_CACHE'] ?? join(stackopsCacheDir(), 'upstream-switch');
const mirrorDir = () => process.env['UPSTREAM_MIRROR'] ?? '/work/.mirror';

const paths = (p: Pin) => ({
  bin: join(cacheDir(), 'bin', `${p.name}-${p.commit}`),
  src: join(cacheDir(), 'src', `${p.name}-${p.commit}`),
});

const executable = (f: string) => {
  try {
    accessSync(f, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const built = (p: Pin) => executable(paths(p).bin) && existsSync(paths(p).src);
const hasGo = () => spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

/**
 * How each Go operator runs out of cluster (as tools/bench/README.md, "Measuring a Go operator the
 * same way", describes): controller-runtime's user agent is the binary's file name, which tells its
 * requests from the bench's in the audit log.
 */
function side(p: Pin, version: string): GoSide {
  const { bin, src } = paths(p);
  const userAgent = new RegExp(`^${p.name}-${p.commit.slice(0, 12)}`);
  if (p.dir === 'keystone')
    return {
      spec: {
        name: `${p.name} (go)`,
        command: [
          bin,
          '--kubeconfig={kubeconfig}',
          '--health-probe-bind-address=127.0.0.1:{probePort}',
          '--metrics-bind-address=127.0.0.1:{metricsPort}',
          '--metrics-secure=false',
          '--leader-elect=false',
        ],
        // Webhooks off as openstack-operator runs it without cert-manager; the default image as its manager.yaml sets it.
        env: {
          ENABLE_WEBHOOKS: 'false',
          OPERATOR_TEMPLATES: `${src}/templates/`,
          RELATED_IMAGE_KEYSTONE_API_IMAGE_URL_DEFAULT: 'keystone:bench',
        },
        userAgent,
      },
      workload: withUpstreamInfra,
    };
  // As its Deployment sets it: operator and operands in the bench's namespace, cluster scope, the
  // component images (kwok runs no container); it reads its templates from ./data, so it starts in
  // its source tree; its manager's addresses come from the two variables go-side-by-side.sh adds.
  const images = [
    'MULTUS',
    'MULTUS_DYNAMIC_NETWORKS_CONTROLLER',
    'LINUX_BRIDGE',
    'LINUX_BRIDGE_MARKER',
    'OVS_CNI',
    'KUBEMACPOOL',
    'MACVTAP_CNI',
    'KUBE_SECONDARY_DNS',
    'CORE_DNS',
    'KUBEVIRT_IPAM_CONTROLLER',
  ];
  return {
    spec: {
      name: `${p.name} (go)`,
      command: ['env', '-C', src, bin, '--kubeconfig={kubeconfig}'],
      env: {
        CNAO_HEALTH_PROBE_BIND_ADDRESS: '127.0.0.1:{probePort}',
        CNAO_METRICS_BIND_ADDRESS: '127.0.0.1:{metricsPort}',
        OPERATOR_NAMESPACE: 'stackops-bench-nao',
        OPERAND_NAMESPACE: 'stackops-bench-nao',
        WATCH_NAMESPACE: '',
        OPERATOR_NAME: p.name,
        OPERATOR_VERSION: version,
        POD_NAME: `${p.name}-bench`,
        OPERATOR_IMAGE: 'cnao:bench',
        ...Object.fromEntries(images.map((i) => [`${i}_IMAGE`, `${i.toLowerCase()}:bench`])),
      },
      userAgent,
    },
    workload: (w) => w,
  };
}

/** The Go operators for these workloads, built first when `auto` can; `note` says what happened. */
export function goSides(dirs: readonly OperatorDir[], mode: GoMode, progress: (l: string) => void): GoSides {
  const wanted = pins().filter((p) => dirs.includes(p.dir));
  if (mode === 'off' || wanted.length === 0)
    return { sides: {}, note: mode === 'off' ? 'Go column: off (--go off).' : '' };
  const missing = wanted.filter((p) => !built(p));
  if (missing.length) {
    const absent = missing.filter((p) => !existsSync(join(mirrorDir(), p.repo.replace('/', '+'), 'repo')));
    const why = [
      ...absent.map((p) => `no stored snapshot of ${p.repo} in ${mirrorDir()}`),
      ...(hasGo() ? [] : ['no go toolchain on PATH']),
    ];
    if (why.length) {
      const note = `Go column skipped: ${missing.map((p) => `${p.name}@${p.commit.slice(0, 12)}`).join(', ')} not built under ${cacheDir()}/bin, and cannot be built here (${why.join('; ')}). To get it: put the snapshots under UPSTREAM_MIRROR (owner+name/repo) with go on PATH, or the binaries and sources under UPSTREAM_SWITCH_CACHE, and run make bench again (tools/bench/go-side-by-side.sh --build-only builds them alone).`;
      if (mode === 'only') throw new Error(note);
      return { sides: {}, note };
    }
    const t0 = performance.now();
    progress(
      `Go column: building ${missing.map((p) => p.name).join(', ')} from their sources (once; cached by commit)`,
    );
    execFileSync(
      'nice',
      ['-n', '19', 'bash', script, '--build-only', '--operators', missing.map((p) => p.dir).join(',')],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    progress(`Go column: built in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  }
  const version = envFile(join(repoRoot, 'tools/bench/go-operators.env'))['CNAO_VERSION'] ?? '';
  const sides = Object.fromEntries(wanted.map((p) => [p.dir, side(p, version)]));
  const note = `Go column: ${wanted.map((p) => `${p.name}@${p.commit.slice(0, 12)}`).join(', ')} (upstream, built from source by tools/bench/go-side-by-side.sh), each run alternating with ours on the same workload; ours ÷ Go per figure.`;
  return { sides, note };
}
