import type { KubeObject } from '../client/types.js';
import { ConditionType, Reason, Severity } from '../conditions/index.js';
import { ExternalKinds } from '../external/kinds.js';
import type { Topology } from '../external/topology.js';
import type { Pass } from '../pipeline/pipeline.js';
import { type Step, type StepResult, stop } from '../pipeline/step.js';
import { holdFinalizer, releaseFinalizer } from '../runtime/finalizer.js';

type Json = Record<string, unknown>;

/** infra-operator's `TopoRef`: a Topology CR by name; the namespace may only be the CR's own. */
export interface TopologyRef {
  name?: string | undefined;
  namespace?: string | undefined;
}

/** What a Topology puts on a pod spec (upstream `Topology.ApplyTo`). */
export interface PodPlacement {
  affinity?: Json;
  topologySpreadConstraints?: Json[];
}

/** A CR that may name a Topology in `spec.topologyRef`. */
export type TopologyConsumer = KubeObject & { spec: { topologyRef?: TopologyRef | undefined } };

/** The status fields the topology step writes. */
export interface TopologyStatus {
  lastAppliedTopology?: TopologyRef | undefined;
}

/** A pass that can run the topology steps; `topology` is what the pod builders apply. */
export type TopologyPass = Pass<TopologyConsumer, TopologyStatus> & { topology?: PodPlacement | undefined };

/** The finalizer a consumer puts on the Topology it uses: `<its own finalizer>-<its name>`, as upstream. */
export const topologyFinalizer = (consumerFinalizer: string, crName: string): string =>
  `${consumerFinalizer}-${crName}`;

/** Whether `ref` names a Topology in another namespace than the CR's (upstream's webhook refuses it). */
export const isForeignTopologyRef = (ref: TopologyRef | undefined, namespace: string): boolean =>
  Boolean(ref?.namespace && ref.namespace !== namespace);

/**
 * The placement a Topology gives pods selected by `selector`: its spread constraints (each one
 * without a labelSelector gets `matchLabels: selector`, as upstream's cluster-level default) and its
 * affinity. Only what the Topology sets is returned.
 */
export function podPlacementOf(topology: Topology, selector: Record<string, string>): PodPlacement {
  const spec = topology.spec ?? {};
  const placement: PodPlacement = {};
  if (spec.topologySpreadConstraints)
    placement.topologySpreadConstraints = spec.topologySpreadConstraints.map((c) =>
      c['labelSelector'] ? { ...c } : { ...c, labelSelector: { matchLabels: { ...selector } } },
    );
  if (spec.affinity) placement.affinity = { ...spec.affinity };
  return placement;
}

/**
 * Puts a Topology's placement on the pod template of a Deployment, Job or CronJob (a copy).
 * Upstream's rule: with a Topology, its spread constraints and affinity replace the defaults (the
 * default anti-affinity goes, even when the Topology only spreads); without one, nothing changes.
 */
export function withPodPlacement<T extends KubeObject>(obj: T, placement: PodPlacement | undefined): T {
  if (!placement) return obj;
  const spec = obj['spec'] as Json | undefined;
  const jobTemplate = spec?.['jobTemplate'] as Json | undefined;
  const holder = (jobTemplate ? jobTemplate['spec'] : spec) as Json | undefined;
  const template = holder?.['template'] as Json | undefined;
  const podSpec = template?.['spec'] as Json | undefined;
  if (!spec || !holder || !template || !podSpec) return obj;
  const { affinity: _a, topologySpreadConstraints: _t, ...rest } = podSpec;
  const placed: Json = {
    ...rest,
    ...(placement.affinity ? { affinity: placement.affinity } : {}),
    ...(placement.topologySpreadConstraints
      ? { topologySpreadConstraints: placement.topologySpreadConstraints }
      : {}),
  };
  const newHolder = { ...holder, template: { ...template, spec: placed } };
  const newSpec = jobTemplate ? { ...spec, jobTemplate: { ...jobTemplate, spec: newHolder } } : newHolder;
  return { ...obj, spec: newSpec };
}

const sameRef = (a: TopologyRef | undefined, b: TopologyRef | undefined): boolean =>
  (a?.name ?? '') === (b?.name ?? '') && (a?.namespace ?? '') === (b?.namespace ?? '');

async function setFinalizer(
  pass: TopologyPass,
  ref: { name: string; namespace: string },
  finalizer: string,
  present: boolean,
): Promise<Topology | undefined> {
  // Only the finalizer list is tested: infra-operator writing the Topology's status never conflicts.
  const set = present ? holdFinalizer : releaseFinalizer;
  return set<Topology & KubeObject>(pass.client, ExternalKinds.Topology, ref, finalizer);
}

/**
 * Removes the consumer's finalizer from the Topology `ref` names (gone already: nothing to do). A ref
 * to another namespace was refused, so it never got one: nothing is read there.
 */
async function releaseRef(
  pass: TopologyPass,
  ref: TopologyRef | undefined,
  finalizer: string,
): Promise<void> {
  const namespace = pass.cr.metadata.namespace ?? '';
  if (!ref?.name || isForeignTopologyRef(ref, namespace)) return;
  await setFinalizer(pass, { name: ref.name, namespace }, finalizer, false);
}

export interface ServiceTopologyOptions<C extends TopologyPass> {
  /** The consumer's own finalizer (e.g. `openstack.org/keystoneapi`); the Topology gets `<it>-<cr name>`. */
  finalizer: string;
  /** The labels of the pods the Topology places (the default selector of its spread constraints). */
  selector: (ctx: C) => Record<string, string>;
}

/**
 * upstream `EnsureServiceTopology` as two pipeline steps. `ensureTopology`: a ref in another
 * namespace is refused (TopologyReady False, severity Error, and an Event); the finalizer leaves the
 * previously applied Topology when the ref changed or went; the named Topology gets the finalizer
 * and its placement goes into `ctx.topology`; `status.lastAppliedTopology` records the ref (with
 * its namespace) and TopologyReady turns True. A missing Topology is TopologyReady False (Error),
 * and the pass waits for it (its creation is watched). `releaseTopology` (deletion): the finalizer
 * leaves the last applied Topology.
 */
export function serviceTopologySteps<C extends TopologyPass>(
  opts: ServiceTopologyOptions<C>,
): { ensureTopology: Step<C>; releaseTopology: Step<C> } {
  const finalizerOf = (ctx: C): string => topologyFinalizer(opts.finalizer, ctx.cr.metadata.name ?? '');

  async function ensureTopology(ctx: C): Promise<StepResult> {
    const namespace = ctx.cr.metadata.namespace ?? '';
    const ref = ctx.cr.spec.topologyRef?.name ? ctx.cr.spec.topologyRef : undefined;
    const last = ctx.previousStatus?.lastAppliedTopology;
    const finalizer = finalizerOf(ctx);
    if (ref && isForeignTopologyRef(ref, namespace)) {
      const message = `spec.topologyRef.namespace: Customizing namespace field is not supported (${ref.namespace} is not ${namespace})`;
      ctx.conditions.markFalse(
        ConditionType.TopologyReady,
        Reason.Error,
        Severity.Error,
        'Topology config create error occurred %s',
        message,
      );
      ctx.event('Warning', 'InvalidTopologyRef', message);
      return stop();
    }
    const wanted = ref ? { name: ref.name ?? '', namespace } : undefined;
    if (last?.name && !sameRef({ ...last, namespace: last.namespace || namespace }, wanted)) {
      try {
        await releaseRef(ctx, last, finalizer);
      } catch (err) {
        if (wanted) ctx.conditions.markError(ConditionType.TopologyReady, err);
        throw err;
      }
    }
    if (!wanted) {
      ctx.status.lastAppliedTopology = undefined;
      ctx.topology = undefined;
      return undefined;
    }
    let topology: Topology | undefined;
    try {
      topology = await setFinalizer(ctx, wanted, finalizer, true);
    } catch (err) {
      ctx.conditions.markError(ConditionType.TopologyReady, err);
      throw err;
    }
    if (!topology) {
      ctx.conditions.markError(ConditionType.TopologyReady, `Topology ${wanted.name} not found`);
      // Nothing was applied from a Topology that is not there: no finalizer to release later.
      ctx.status.lastAppliedTopology = undefined;
      return stop();
    }
    ctx.topology = podPlacementOf(topology, opts.selector(ctx));
    ctx.status.lastAppliedTopology = wanted;
    ctx.conditions.markTrue(ConditionType.TopologyReady);
    return undefined;
  }

  async function releaseTopology(ctx: C): Promise<StepResult> {
    const finalizer = finalizerOf(ctx);
    await releaseRef(ctx, ctx.previousStatus?.lastAppliedTopology ?? ctx.cr.spec.topologyRef, finalizer);
    return undefined;
  }

  return { ensureTopology, releaseTopology };
}
