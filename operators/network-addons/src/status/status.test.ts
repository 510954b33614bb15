import { describe, expect, it } from 'vitest';
import type { NetworkAddonsConfigStatus } from '../api/network-addons-config.js';
import { setCondition } from './conditions.js';
import { computeStatus, ignoredStatus, type Outcome } from './status.js';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';
const v = (operatorVersion: string, generation = 1) => ({ operatorVersion, generation });
const cond = (s: NetworkAddonsConfigStatus, type: string) => s.conditions?.find((c) => c.type === type);
/** A condition with no reason or message: only its type, status and when it last changed. */
const settled = (type: string, status: string, lastTransitionTime: string) => ({
  type,
  status,
  lastTransitionTime,
});
const container = { parentKind: 'DaemonSet', parentName: 'multus', name: 'kube-multus', image: 'm:1' };

const rollingOut: Outcome = {
  kind: 'applied',
  progressing: ['DaemonSet "ns/multus" is not yet scheduled on any nodes'],
  containers: [container],
};
const rolledOut: Outcome = { kind: 'applied', progressing: [], containers: [container] };
const invalid: Outcome = {
  kind: 'failed',
  failure: { reason: 'FailedToValidate', message: 'failed to validate' },
};

describe('setCondition', () => {
  it('keeps the transition time when the status does not change, and moves it when it does', () => {
    let cs = setCondition([], { type: 'Available', status: 'False', reason: 'Startup' }, T0);
    cs = setCondition(cs, { type: 'Available', status: 'False', reason: 'Failing', message: 'x' }, T1);
    expect(cs).toEqual([
      { type: 'Available', status: 'False', reason: 'Failing', message: 'x', lastTransitionTime: T0 },
    ]);
    cs = setCondition(cs, { type: 'Available', status: 'True' }, T1);
    expect(cs).toEqual([{ type: 'Available', status: 'True', lastTransitionTime: T1 }]);
  });
});

describe('computeStatus', () => {
  it('walks a new config through Progressing to Available, with upstream reasons and messages', () => {
    const first = computeStatus(undefined, rollingOut, v('1.0'), T0);
    expect(cond(first.status, 'Degraded')).toEqual(settled('Degraded', 'False', T0));
    expect(cond(first.status, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'Deploying',
      message: rollingOut.kind === 'applied' ? rollingOut.progressing[0] : '',
    });
    expect(cond(first.status, 'Available')).toMatchObject({
      status: 'False',
      reason: 'Startup',
      message: 'Configuration is in process',
    });
    expect(first.status).toMatchObject({
      operatorVersion: '1.0',
      targetVersion: '1.0',
      observedGeneration: 1,
    });
    expect(first.status.observedVersion).toBeUndefined();
    expect(first.events.map((e) => e.reason)).toEqual(['Progressing']);

    const done = computeStatus(first.status, rolledOut, v('1.0'), T1);
    expect(cond(done.status, 'Available')).toEqual(settled('Available', 'True', T1));
    expect(cond(done.status, 'Progressing')).toEqual(settled('Progressing', 'False', T1));
    expect(cond(done.status, 'Degraded')?.lastTransitionTime).toBe(T0);
    expect(done.status.observedVersion).toBe('1.0');
    expect(done.status.containers).toEqual([container]);
    expect(done.events).toEqual([
      { type: 'Normal', reason: 'Available', message: 'All applied components are available' },
    ]);
  });

  it('changes nothing and emits nothing when reconciled again in the same state', () => {
    const done = computeStatus(
      computeStatus(undefined, rolledOut, v('1.0'), T0).status,
      rolledOut,
      v('1.0'),
      T0,
    );
    const again = computeStatus(done.status, rolledOut, v('1.0'), T1);
    expect(again.status).toEqual(done.status);
    expect(again.events).toEqual([]);
  });

  it('reports a failure as Degraded, not Available and not Progressing, keeping versions and containers', () => {
    const done = computeStatus(undefined, rolledOut, v('1.0'), T0).status;
    const failed = computeStatus(done, invalid, v('1.0', 2), T1);
    expect(cond(failed.status, 'Degraded')).toEqual({
      type: 'Degraded',
      status: 'True',
      reason: 'FailedToValidate',
      message: 'failed to validate',
      lastTransitionTime: T1,
    });
    expect(cond(failed.status, 'Available')).toMatchObject({
      status: 'False',
      reason: 'Failing',
      message: 'Unable to apply desired configuration',
    });
    expect(cond(failed.status, 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'InvalidConfiguration',
      message: 'Human interaction is needed, please fix the desired configuration',
      lastTransitionTime: T0,
    });
    expect(failed.status).toMatchObject({
      observedVersion: '1.0',
      observedGeneration: 2,
      containers: [container],
    });
    expect(failed.events).toEqual([
      { type: 'Warning', reason: 'Failed: FailedToValidate', message: 'Operator failed: failed to validate' },
    ]);
    expect(computeStatus(failed.status, invalid, v('1.0', 2), T1).events).toEqual([]);
  });

  it('reports the new version at once on upgrade and moves observedVersion only once rolled out', () => {
    const old = computeStatus(undefined, rolledOut, v('1.0'), T0).status;
    const upgrading = computeStatus(old, rollingOut, v('2.0'), T1).status;
    expect(upgrading).toMatchObject({ operatorVersion: '2.0', targetVersion: '2.0', observedVersion: '1.0' });
    expect(computeStatus(upgrading, rolledOut, v('2.0'), T1).status.observedVersion).toBe('2.0');
  });

  it('drops the legacy Failing condition', () => {
    const legacy = { conditions: [{ type: 'Failing', status: 'True', lastTransitionTime: T0 }] };
    expect(computeStatus(legacy, rolledOut, v('1.0'), T1).status.conditions?.map((c) => c.type)).toEqual([
      'Degraded',
      'Progressing',
      'Available',
    ]);
  });
});

describe('ignoredStatus', () => {
  it('says clearly that only "cluster" is acted on', () => {
    const s = ignoredStatus(undefined, 'other', 'cluster', v('1.0'), T0);
    expect(cond(s, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'Ignored',
      message: 'NetworkAddonsConfig "other" is ignored: only the one named "cluster" is acted on',
    });
    expect(cond(s, 'Available')?.status).toBe('False');
    expect(ignoredStatus(s, 'other', 'cluster', v('1.0'), T1)).toEqual(s);
  });

  it('is Degraded with PodsFailing and one Warning Event while pods fail, and back to False once they recover', () => {
    const line = 'DaemonSet "ns/multus": pod "multus-x" container "kube-multus" is waiting: ImagePullBackOff';
    const failing: Outcome = { ...rollingOut, failing: [line] };
    const first = computeStatus(undefined, failing, v('1.0'), T0);
    expect(cond(first.status, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'PodsFailing',
      message: line,
    });
    expect(cond(first.status, 'Progressing')).toMatchObject({ status: 'True', reason: 'Deploying' });
    expect(first.events).toContainEqual({
      type: 'Warning',
      reason: 'Failed: PodsFailing',
      message: `Operator failed: ${line}`,
    });
    const again = computeStatus(first.status, failing, v('1.0'), T1);
    expect(again.events.filter((e) => e.type === 'Warning')).toEqual([]);
    const recovered = computeStatus(again.status, rolledOut, v('1.0'), T1);
    expect(cond(recovered.status, 'Degraded')).toMatchObject({ status: 'False' });
    expect(cond(recovered.status, 'Available')).toMatchObject({ status: 'True' });
  });
});
