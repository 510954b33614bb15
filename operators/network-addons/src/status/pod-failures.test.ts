import type { KubeObject } from '@stackops/lib-common/client';
import { describe, expect, it } from 'vitest';
import { podFailures, podStateChanged } from './pod-failures.js';

const ds: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { namespace: 'ns', name: 'multus' },
  spec: { selector: { matchLabels: { name: 'multus' } } },
};
const pod = (name: string, waiting?: string, ns = 'ns'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { namespace: ns, name, labels: { name: 'multus', other: 'x' } },
  status: {
    initContainerStatuses: [{ name: 'install', ready: true, state: { terminated: {} } }],
    containerStatuses: [
      { name: 'kube-multus', ready: false, state: waiting ? { waiting: { reason: waiting } } : {} },
    ],
  },
});

describe('podFailures', () => {
  it('names the workload, the first failing pod by name and its container waiting reason', () => {
    expect(
      podFailures([ds], [pod('multus-b', 'CrashLoopBackOff'), pod('multus-a', 'ImagePullBackOff')]),
    ).toEqual(['DaemonSet "ns/multus": pod "multus-a" container "kube-multus" is waiting: ImagePullBackOff']);
  });

  it('ignores a normal start, pods of other namespaces and other labels', () => {
    const stranger = { ...pod('x', 'ErrImagePull'), metadata: { namespace: 'ns', name: 'x', labels: {} } };
    expect(
      podFailures(
        [ds],
        [pod('multus-a', 'ContainerCreating'), pod('multus-b', 'ErrImagePull', 'other'), stranger],
      ),
    ).toEqual([]);
  });
});

describe('podStateChanged', () => {
  it('passes a change of waiting reason, not a change of anything else', () => {
    const a = pod('p', 'ErrImagePull');
    expect(podStateChanged({ type: 'update', old: a, obj: pod('p', 'ImagePullBackOff') })).toBe(true);
    expect(
      podStateChanged({ type: 'update', old: a, obj: { ...a, metadata: { ...a.metadata, uid: 'u' } } }),
    ).toBe(false);
    expect(podStateChanged({ type: 'delete', obj: a })).toBe(true);
  });
});
