import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import type { InformerEvent } from './informer.js';
import {
  and,
  annotationsChanged,
  generationChanged,
  labelSelected,
  labelsChanged,
  not,
  or,
  resourceVersionChanged,
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
