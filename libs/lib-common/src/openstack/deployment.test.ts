import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import {
  buildDeployment,
  distributePods,
  httpProbe,
  isDeploymentReady,
  observedReadyReplicas,
  withEnv,
} from './deployment.js';

const selector = { service: 'keystone', owner: 'keystone' };

describe('buildDeployment', () => {
  const d = buildDeployment({
    name: 'keystone',
    namespace: 'ns',
    selector,
    podAnnotations: { 'k8s.v1.cni.cncf.io/networks': '[]' },
    replicas: 3,
    serviceAccountName: 'keystone-keystone',
    nodeSelector: { zone: 'a' },
    configHash: 'abc',
    containers: [
      {
        name: 'keystone-api',
        image: 'img',
        env: [{ name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' }],
        resources: { requests: { cpu: '100m' } },
        livenessProbe: httpProbe({ path: '/v3', port: 5000 }),
      },
    ],
  });
  interface PodSpecView {
    serviceAccountName?: string;
    nodeSelector?: Record<string, string>;
    containers: Record<string, unknown>[];
    affinity?: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: unknown[] } };
  }
  const spec = d['spec'] as {
    replicas: number;
    selector: unknown;
    template: { metadata: unknown; spec: PodSpecView };
  };
  const pod = spec.template.spec;

  it('uses the selector for matchLabels, pod labels and (by default) object labels', () => {
    expect(spec.selector).toEqual({ matchLabels: selector });
    expect(spec.template.metadata).toEqual({
      labels: selector,
      annotations: { 'k8s.v1.cni.cncf.io/networks': '[]' },
    });
    expect(d.metadata).toEqual({ name: 'keystone', namespace: 'ns', labels: selector });
  });

  it('sets replicas, service account, node selector', () => {
    expect(spec.replicas).toBe(3);
    expect(pod.serviceAccountName).toBe('keystone-keystone');
    expect(pod.nodeSelector).toEqual({ zone: 'a' });
  });

  it('adds CONFIG_HASH after the existing env, defaults the pull policy, keeps resources and probes', () => {
    expect(pod.containers[0]).toEqual({
      name: 'keystone-api',
      image: 'img',
      imagePullPolicy: 'IfNotPresent',
      env: [
        { name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' },
        { name: 'CONFIG_HASH', value: 'abc' },
      ],
      resources: { requests: { cpu: '100m' } },
      livenessProbe: {
        httpGet: { path: '/v3', port: 5000, scheme: 'HTTP' },
        timeoutSeconds: 30,
        periodSeconds: 30,
        initialDelaySeconds: 5,
      },
    });
  });

  it('spreads pods of the same service by default (preferred anti-affinity, weight 100)', () => {
    expect(pod.affinity).toEqual(distributePods('service', ['keystone']));
    expect(pod.affinity?.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]).toMatchObject({
      weight: 100,
      podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' },
    });
  });

  it('leaves out affinity when asked, and empty node selectors / annotations', () => {
    const bare = buildDeployment({
      name: 'x',
      namespace: 'n',
      selector,
      replicas: 1,
      containers: [{ name: 'c' }],
      affinity: null,
      nodeSelector: {},
    });
    const s = bare['spec'] as { template: { metadata: object; spec: object } };
    expect(s.template.metadata).toEqual({ labels: selector });
    expect(s.template.spec).not.toHaveProperty('affinity');
    expect(s.template.spec).not.toHaveProperty('nodeSelector');
  });
});

describe('withEnv', () => {
  it('replaces in place and appends new names sorted', () => {
    const c = withEnv(
      {
        name: 'c',
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
      { Z: 'z', A: 'new', M: 'm' },
    );
    expect(c.env).toEqual([
      { name: 'A', value: 'new' },
      { name: 'B', value: '2' },
      { name: 'M', value: 'm' },
      { name: 'Z', value: 'z' },
    ]);
  });
});

describe('isDeploymentReady', () => {
  const dep = (replicas: number | undefined, status: Record<string, number>, generation = 2): KubeObject => ({
    metadata: { generation },
    spec: replicas === undefined ? {} : { replicas },
    status,
  });

  it.each<[string, KubeObject, boolean, number | undefined]>([
    [
      'all ready and observed',
      dep(2, { replicas: 2, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 2 }),
      true,
      2,
    ],
    [
      'generation not observed',
      dep(2, { replicas: 2, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 1 }),
      false,
      undefined,
    ],
    [
      'one not ready',
      dep(2, { replicas: 2, readyReplicas: 1, updatedReplicas: 2, observedGeneration: 2 }),
      false,
      1,
    ],
    [
      'old replica still around',
      dep(2, { replicas: 3, readyReplicas: 2, updatedReplicas: 2, observedGeneration: 2 }),
      false,
      2,
    ],
    ['zero replicas once observed', dep(0, { observedGeneration: 2 }), true, 0],
    ['no replicas field', dep(undefined, { observedGeneration: 2 }), false, 0],
  ])('%s → %s', (_n, d, ready, readyCount) => {
    expect(isDeploymentReady(d)).toBe(ready);
    expect(observedReadyReplicas(d)).toBe(readyCount);
  });
});
