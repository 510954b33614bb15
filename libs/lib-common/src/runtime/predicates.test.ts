import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import type { InformerEvent } from './informer.js';
import {
  and,
  annotationsChanged,
  deploymentReadinessChanged,
  generationChanged,
  jobOutcomeChanged,
  labelSelected,
  labelsChanged,
  not,
  or,
  resourceVersionChanged,
  specOrMetadataChanged,
} from './predicates.js';

const obj = (meta: Partial<KubeObject['metadata']>): KubeObject => ({ metadata: { name: 'a', ...meta } });
const update = (
  old: Partial<KubeObject['metadata']>,
  now: Partial<KubeObject['metadata']>,
): InformerEvent => ({
  type: 'update',
  old: obj(old),
  obj: obj(now),
});

describe('predicates', () => {
  it('generationChanged passes spec changes and deletion, not status-only updates', () => {
    expect(
      generationChanged(
        update({ generation: 1, resourceVersion: '1' }, { generation: 1, resourceVersion: '2' }),
      ),
    ).toBe(false);
    expect(generationChanged(update({ generation: 1 }, { generation: 2 }))).toBe(true);
    expect(
      generationChanged(
        update({ generation: 1 }, { generation: 1, deletionTimestamp: '2026-01-01T00:00:00Z' }),
      ),
    ).toBe(true);
    expect(generationChanged({ type: 'add', obj: obj({}) })).toBe(true);
    expect(generationChanged({ type: 'delete', obj: obj({}) })).toBe(true);
  });

  it('specOrMetadataChanged drops status-only writes, passes every other change', () => {
    const base = {
      metadata: { name: 'a', generation: 1, resourceVersion: '1', labels: { a: '1' }, finalizers: ['f'] },
      spec: { replicas: 1 },
      status: { observedGeneration: 1 },
    } as KubeObject;
    const with_ = (o: object): KubeObject => ({ ...base, ...o }) as KubeObject;
    const meta = (m: object): KubeObject => with_({ metadata: { ...base.metadata, ...m } });
    const upd = (obj: KubeObject): InformerEvent => ({ type: 'update', old: base, obj });
    // Its own status write: a new resourceVersion, new managedFields, another status.
    expect(
      specOrMetadataChanged(
        upd({
          ...meta({ resourceVersion: '2', managedFields: [{ manager: 'x' }] }),
          status: { observedGeneration: 1, conditions: [] },
        } as KubeObject),
      ),
    ).toBe(false);
    expect(specOrMetadataChanged(upd(meta({ generation: 2, resourceVersion: '2' })))).toBe(true);
    expect(specOrMetadataChanged(upd(with_({ spec: { replicas: 2 } })))).toBe(true);
    expect(specOrMetadataChanged(upd(meta({ labels: { a: '2' } })))).toBe(true);
    expect(specOrMetadataChanged(upd(meta({ annotations: { x: 'y' } })))).toBe(true);
    expect(specOrMetadataChanged(upd(meta({ finalizers: [] })))).toBe(true);
    expect(specOrMetadataChanged(upd(meta({ deletionTimestamp: '2026-01-01T00:00:00Z' })))).toBe(true);
    expect(specOrMetadataChanged({ type: 'add', obj: base })).toBe(true);
    expect(specOrMetadataChanged({ type: 'delete', obj: base })).toBe(true);
  });

  it('jobOutcomeChanged passes what decides the outcome, not a pod starting or being counted', () => {
    const job = (status: object, rv = '1'): KubeObject =>
      ({ metadata: { name: 'j', resourceVersion: rv }, spec: { backoffLimit: 0 }, status }) as KubeObject;
    const upd = (a: object, b: object): InformerEvent => ({ type: 'update', old: job(a), obj: job(b, '2') });
    expect(jobOutcomeChanged(upd({}, { active: 1, ready: 0, startTime: 't' }))).toBe(false);
    expect(
      jobOutcomeChanged(upd({ active: 1 }, { active: 0, uncountedTerminatedPods: { succeeded: ['u'] } })),
    ).toBe(false);
    expect(
      jobOutcomeChanged(
        upd({ active: 0 }, { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] }),
      ),
    ).toBe(true);
    expect(jobOutcomeChanged(upd({ active: 1 }, { active: 1, failed: 1 }))).toBe(true);
    const relabelled: InformerEvent = {
      type: 'update',
      old: job({}),
      obj: { ...job({}, '2'), metadata: { name: 'j', resourceVersion: '2', labels: { a: 'b' } } },
    };
    expect(jobOutcomeChanged(relabelled)).toBe(true);
    expect(jobOutcomeChanged({ type: 'delete', obj: job({}) })).toBe(true);
  });

  it('deploymentReadinessChanged passes what readiness is computed from, not availability or conditions', () => {
    const d = (status: object, rv: string): KubeObject =>
      ({
        metadata: { name: 'd', generation: 1, resourceVersion: rv },
        spec: { replicas: 1 },
        status,
      }) as KubeObject;
    const upd = (a: object, b: object): InformerEvent => ({ type: 'update', old: d(a, '1'), obj: d(b, '2') });
    const ready = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1 };
    expect(deploymentReadinessChanged(upd(ready, { ...ready, availableReplicas: 1, conditions: [] }))).toBe(
      false,
    );
    expect(deploymentReadinessChanged(upd({ ...ready, readyReplicas: 0 }, ready))).toBe(true);
    expect(deploymentReadinessChanged(upd({}, { observedGeneration: 1 }))).toBe(true);
  });

  it('resourceVersionChanged drops resync-style updates that changed nothing', () => {
    expect(resourceVersionChanged(update({ resourceVersion: '3' }, { resourceVersion: '3' }))).toBe(false);
    expect(resourceVersionChanged(update({ resourceVersion: '3' }, { resourceVersion: '4' }))).toBe(true);
  });

  it('labelsChanged and annotationsChanged compare the maps by content', () => {
    expect(labelsChanged(update({ labels: { a: '1' } }, { labels: { a: '1' } }))).toBe(false);
    expect(labelsChanged(update({ labels: { a: '1' } }, { labels: { a: '2' } }))).toBe(true);
    expect(labelsChanged(update({}, { labels: { a: '1' } }))).toBe(true);
    expect(annotationsChanged(update({ annotations: { x: 'y' } }, {}))).toBe(true);
    expect(annotationsChanged(update({ annotations: {} }, {}))).toBe(false);
  });

  it('labelSelected matches either version of an update, so leaving the selection is seen', () => {
    const p = labelSelected('app=db');
    expect(p({ type: 'add', obj: obj({ labels: { app: 'db' } }) })).toBe(true);
    expect(p({ type: 'add', obj: obj({ labels: { app: 'web' } }) })).toBe(false);
    expect(p(update({ labels: { app: 'db' } }, { labels: { app: 'web' } }))).toBe(true);
  });

  it('combines with and / or / not', () => {
    const e = update({ generation: 1, labels: { a: '1' } }, { generation: 1, labels: { a: '2' } });
    expect(and(generationChanged, labelsChanged)(e)).toBe(false);
    expect(or(generationChanged, labelsChanged)(e)).toBe(true);
    expect(not(generationChanged)(e)).toBe(true);
  });
});
