import type { KubeObject } from '../client/types.js';
import type { Conditions } from '../conditions/conditions.js';
import { type JobObject, jobHash } from './jobs.js';

/**
 * Adopting a Job run of the previous operator (the Go operators) at the switch (ADR 0048): their
 * `status.hash[<job>]` is a hash of their own pod spec, never equal to ours, so without this rule
 * every hash-gated Job would run again although its work is done.
 */

/** The condition message (and Event) of an adopted run. */
export const ADOPTED_JOB_MESSAGE = "adopted from the previous operator's run";
/** The Event reason of an adopted run. */
export const JOB_ADOPTED_REASON = 'JobRunAdopted';

/**
 * The Go operators' hash: `fmt.Sprint` of the 32 SHA-256 bytes (`[12 201 …]`) in the safe
 * alphabet, one character per character: `[`→n, space→h, `]`→q, digits→4-9bcdf. 65 to 129
 * characters; ours (`stableHash`) are always 54, so the two never mix up.
 */
const FOREIGN_HASH = /^n[4-9bcdf]{1,3}(?:h[4-9bcdf]{1,3}){31}q$/;

/** Whether a recorded Job hash was written by the Go operators (not by us). */
export const isForeignJobHash = (hash: string | undefined): boolean =>
  hash !== undefined && FOREIGN_HASH.test(hash);

/**
 * What a pass writes in place of a foreign hash once the previous operator's own status proved the
 * run done: the generation it proved it for. Never a hash of ours (no `@` in our alphabet), so until
 * the Job step replaces it, it only means "adopt if nothing changed since".
 */
const ADOPTABLE_PREFIX = 'previous-operator-run@generation-';

interface StatusEvidence {
  hash?: Record<string, string>;
  observedGeneration?: number;
  conditions?: readonly { type: string; status: string }[];
}

/** A hash-gated Job a CR runs: its `status.hash` key and the condition that reports it. */
export interface AdoptableJob {
  hashKey: string;
  condition: string;
}

/**
 * First thing of a pass (the evidence is the previous operator's status, which the pass's own
 * status write replaces): each Job whose recorded hash is foreign, whose condition the previous
 * operator reported True, and whose status it wrote for the CR's current generation, is marked
 * adoptable for that generation. Anything else leaves the foreign hash, which runs the Job as before.
 */
export function markAdoptableJobRuns(
  cr: KubeObject,
  previous: StatusEvidence | undefined,
  hashes: Record<string, string>,
  jobs: readonly AdoptableJob[],
): void {
  const generation = cr.metadata.generation;
  if (generation === undefined || previous?.observedGeneration !== generation) return;
  for (const { hashKey, condition } of jobs) {
    if (!isForeignJobHash(hashes[hashKey])) continue;
    const done = previous.conditions?.some((c) => c.type === condition && c.status === 'True') ?? false;
    if (done) hashes[hashKey] = `${ADOPTABLE_PREFIX}${generation}`;
  }
}

interface DeploymentLike extends KubeObject {
  spec?: { template?: { spec?: { containers?: readonly { image?: string }[] } } };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number };
}

const imagesOf = (containers: readonly { image?: string }[] | undefined): string[] =>
  [...new Set((containers ?? []).map((c) => c.image ?? ''))].sort();

/**
 * Whether the Job step may record `job`'s hash without running it: the recorded value is the
 * adoptable mark for the CR's current generation (nothing in the spec changed since the previous
 * operator's run), and the CR's API Deployment, as the previous operator left it (owned by the
 * CR, rolled out), runs exactly the images the Job would run — so the run it did used the software
 * this Job would run. Returns why not, or undefined when the run is adopted.
 */
function refuseAdoption(
  cr: KubeObject,
  recorded: string | undefined,
  job: JobObject,
  deployment: DeploymentLike | undefined,
): string | undefined {
  if (recorded !== `${ADOPTABLE_PREFIX}${cr.metadata.generation}`) return 'not marked adoptable';
  if (!deployment) return 'no API Deployment';
  if (!deployment.metadata.ownerReferences?.some((o) => o.uid === cr.metadata.uid))
    return 'the API Deployment is not owned by this object';
  const s = deployment.status ?? {};
  if ((s.observedGeneration ?? 0) < (deployment.metadata.generation ?? 0) || s.updatedReplicas !== s.replicas)
    return 'the API Deployment is not rolled out';
  const spec = job.spec?.template?.spec as
    | { containers?: { image?: string }[]; initContainers?: { image?: string }[] }
    | undefined;
  const jobImages = imagesOf([...(spec?.containers ?? []), ...(spec?.initContainers ?? [])]);
  const running = imagesOf(deployment.spec?.template?.spec?.containers);
  if (jobImages.join('\n') !== running.join('\n'))
    return `the API Deployment runs ${running.join(', ')}, the Job would run ${jobImages.join(', ')}`;
  return undefined;
}

/** What a Job step needs to adopt. */
export interface AdoptionPass {
  cr: KubeObject;
  readonly conditions: Conditions;
  event(type: 'Normal' | 'Warning', reason: string, message: string): void;
  readonly log: { info(obj: object, msg: string): void };
}

/**
 * The Job step's side of the rule: when `refuseAdoption` has no objection, marks `condition` True
 * with the adopted message, records an Event and returns the hash to store (the Job is not run);
 * otherwise logs why (a marked run not adopted) and returns undefined — the Job runs as always.
 */
export function adoptJobRun(
  ctx: AdoptionPass,
  recorded: string | undefined,
  job: JobObject,
  deployment: DeploymentLike | undefined,
  condition: string,
): string | undefined {
  if (!recorded?.startsWith(ADOPTABLE_PREFIX)) return undefined;
  const name = job.metadata.name ?? '';
  const why = refuseAdoption(ctx.cr, recorded, job, deployment);
  if (why) {
    ctx.log.info({ job: name, why }, `Job ${name}: the previous operator's run not adopted, running it`);
    return undefined;
  }
  ctx.conditions.markTrue(condition, ADOPTED_JOB_MESSAGE);
  ctx.event('Normal', JOB_ADOPTED_REASON, `Job ${name}: ${ADOPTED_JOB_MESSAGE}, not run again`);
  return jobHash(job);
}

/**
 * Keeps the adopted message on a succeeded Job's condition for as long as the adopted hash stands
 * (the pass re-initialises conditions, and upstream's message would hide that the Job never ran here).
 */
export function keepAdoptedMessage(
  ctx: { readonly conditions: Conditions },
  previous: { conditions?: readonly { type: string; status: string; message?: string }[] } | undefined,
  condition: string,
): void {
  const before = previous?.conditions?.find((c) => c.type === condition);
  if (before?.status === 'True' && before.message === ADOPTED_JOB_MESSAGE)
    ctx.conditions.markTrue(condition, ADOPTED_JOB_MESSAGE);
}
