import type { KubeObject } from '@stackops/lib-common/client';
import { describe, expect, it } from 'vitest';
import { containersOf, daemonSetProgress, deploymentProgress, rolloutMessages } from './rollout.js';

const ds = (status: Record<string, number>, generation = 1): KubeObject => ({
  kind: 'DaemonSet',
  metadata: { namespace: 'ns', name: 'multus', generation },
  status,
});
const dep = (status: Record<string, number>, replicas = 1, generation = 1): KubeObject => ({
  kind: 'Deployment',
  metadata: { namespace: 'ns', name: 'kmp', generation },
  spec: { replicas },
  status,
});

describe('daemonSetProgress', () => {
  it.each([
    [
      { numberUnavailable: 2, desiredNumberScheduled: 3, numberAvailable: 1 },
      'DaemonSet "ns/multus" is not available (awaiting 2 nodes)',
    ],
    [
      { desiredNumberScheduled: 3, numberAvailable: 0 },
      'DaemonSet "ns/multus" is not yet scheduled on any nodes',
    ],
    [
      { desiredNumberScheduled: 3, numberAvailable: 3, updatedNumberScheduled: 1, observedGeneration: 1 },
      'DaemonSet "ns/multus" update is rolling out (1 out of 3 updated)',
    ],
    [
      { desiredNumberScheduled: 3, numberAvailable: 3, updatedNumberScheduled: 3, observedGeneration: 1 },
      undefined,
    ],
    [{ desiredNumberScheduled: 0, observedGeneration: 1 }, undefined],
  ])('%j → %s', (status, message) => {
    expect(daemonSetProgress(ds(status))).toBe(message);
  });

  it('waits for the controller to see a new generation', () => {
    expect(
      daemonSetProgress(
        ds(
          { desiredNumberScheduled: 3, numberAvailable: 3, updatedNumberScheduled: 3, observedGeneration: 1 },
          2,
        ),
      ),
    ).toBe('DaemonSet "ns/multus" update is being processed (generation 2, observed generation 1)');
    expect(daemonSetProgress(ds({}, 1))).toBe(
      'DaemonSet "ns/multus" update is being processed (generation 1, observed generation 0)',
    );
  });
});

describe('deploymentProgress', () => {
  it.each([
    [{ unavailableReplicas: 1, replicas: 1 }, 'Deployment "ns/kmp" is not available (awaiting 1 nodes)'],
    [
      { availableReplicas: 0, observedGeneration: 1 },
      'Deployment "ns/kmp" is not yet scheduled on any nodes',
    ],
    [{ availableReplicas: 1, updatedReplicas: 1, observedGeneration: 1 }, undefined],
  ])('%j → %s', (status, message) => {
    expect(deploymentProgress(dep(status))).toBe(message);
  });

  it('waits for a new generation, then for old pods to be replaced', () => {
    expect(
      deploymentProgress(dep({ availableReplicas: 2, updatedReplicas: 2, observedGeneration: 1 }, 2, 2)),
    ).toBe('Deployment "ns/kmp" update is being processed (generation 2, observed generation 1)');
    expect(
      deploymentProgress(dep({ availableReplicas: 2, updatedReplicas: 1, observedGeneration: 2 }, 2, 2)),
    ).toBe('Deployment "ns/kmp" update is rolling out (1 out of 2 updated)');
  });
});

describe('rolloutMessages', () => {
  it('lists DaemonSets first, then Deployments, only those not rolled out', () => {
    expect(
      rolloutMessages([
        dep({ unavailableReplicas: 1 }),
        ds({
          desiredNumberScheduled: 1,
          numberAvailable: 1,
          updatedNumberScheduled: 1,
          observedGeneration: 1,
        }),
        ds({ numberUnavailable: 1 }),
      ]),
    ).toEqual([
      'DaemonSet "ns/multus" is not available (awaiting 1 nodes)',
      'Deployment "ns/kmp" is not available (awaiting 1 nodes)',
    ]);
  });
});

describe('containersOf', () => {
  it('lists init containers first, then containers, per workload in order', () => {
    const w = (kind: string, name: string, init: string[], main: string[]) => ({
      kind,
      metadata: { name },
      spec: {
        template: {
          spec: {
            initContainers: init.map((n) => ({ name: n, image: `${n}:1` })),
            containers: main.map((n) => ({ name: n, image: `${n}:1` })),
          },
        },
      },
    });
    expect(
      containersOf([
        w('DaemonSet', 'multus', ['install'], ['daemon']),
        w('Deployment', 'dns', [], ['a', 'b']),
      ]),
    ).toEqual([
      { parentKind: 'DaemonSet', parentName: 'multus', name: 'install', image: 'install:1' },
      { parentKind: 'DaemonSet', parentName: 'multus', name: 'daemon', image: 'daemon:1' },
      { parentKind: 'Deployment', parentName: 'dns', name: 'a', image: 'a:1' },
      { parentKind: 'Deployment', parentName: 'dns', name: 'b', image: 'b:1' },
    ]);
  });
});
