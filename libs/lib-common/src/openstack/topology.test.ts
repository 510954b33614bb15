import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import { isForeignTopologyRef, podPlacementOf, topologyFinalizer, withPodPlacement } from './topology.js';

const zone = { topologyKey: 'topology.kubernetes.io/zone', maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' };
const affinity = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] }],
    },
  },
};
const podTemplate = (spec: Record<string, unknown>) => ({ template: { metadata: {}, spec } });

describe('Topology placement (upstream ApplyTo)', () => {
  it('spread constraints without a labelSelector select the service pods; an explicit one is kept', () => {
    const own = { ...zone, labelSelector: { matchLabels: { app: 'x' } } };
    const placement = podPlacementOf(
      { metadata: { name: 't' }, spec: { topologySpreadConstraints: [zone, own], affinity } },
      { service: 'keystone', owner: 'keystone' },
    );
    expect(placement.topologySpreadConstraints).toEqual([
      { ...zone, labelSelector: { matchLabels: { service: 'keystone', owner: 'keystone' } } },
      own,
    ]);
    expect(placement.affinity).toEqual(affinity);
  });

  it('replaces the default anti-affinity of a Deployment, even when the Topology only spreads', () => {
    const deployment: KubeObject = {
      metadata: { name: 'd' },
      spec: podTemplate({ containers: [], affinity: { podAntiAffinity: {} } }),
    };
    const placed = withPodPlacement(deployment, { topologySpreadConstraints: [zone] });
    const spec = (placed['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
    expect(spec['affinity']).toBeUndefined();
    expect(spec['topologySpreadConstraints']).toEqual([zone]);
    expect(spec['containers']).toEqual([]);
    // The input is not changed, and no Topology changes nothing.
    expect((deployment['spec'] as { template: { spec: object } }).template.spec).toHaveProperty('affinity');
    expect(withPodPlacement(deployment, undefined)).toBe(deployment);
  });

  it('reaches the pods of a CronJob through its jobTemplate', () => {
    const cron: KubeObject = { metadata: { name: 'c' }, spec: { jobTemplate: { spec: podTemplate({}) } } };
    const placed = withPodPlacement(cron, { affinity });
    expect(placed['spec']).toEqual({ jobTemplate: { spec: podTemplate({ affinity }) } });
  });

  it('names its finalizer after the consumer and refuses only another namespace', () => {
    expect(topologyFinalizer('openstack.org/keystoneapi', 'keystone')).toBe(
      'openstack.org/keystoneapi-keystone',
    );
    expect(isForeignTopologyRef({ name: 't' }, 'a')).toBe(false);
    expect(isForeignTopologyRef({ name: 't', namespace: 'a' }, 'a')).toBe(false);
    expect(isForeignTopologyRef({ name: 't', namespace: 'b' }, 'a')).toBe(true);
  });
});
