import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../client/types.js';
import { Conditions, Reason, Severity } from '../conditions/index.js';
import type { Pass } from './pipeline.js';
import { checkSpecFirst } from './spec-check.js';
import { stop } from './step.js';

/** The parts of a pass the spec check uses: conditions, Events, the previous status, a logger. */
function pass(previous?: { conditions: unknown[] }) {
  const events: { type: string; reason: string; message: string }[] = [];
  const ctx = {
    conditions: new Conditions().init(['InputReady', 'CacheReady']),
    previousStatus: previous,
    log: pino({ level: 'silent' }),
    event: (type: string, reason: string, message: string) => events.push({ type, reason, message }),
  } as unknown as Pass<KubeObject, object>;
  return { ctx, events };
}

describe('checkSpecFirst', () => {
  const cacheMissing = (ctx: Pass<KubeObject, object>) => {
    ctx.conditions.markFalse('CacheReady', Reason.Requested, Severity.Warning, 'cache missing');
    return stop(10_000);
  };

  it('goes on when the spec has no error, without running the dependency checks', async () => {
    const { ctx, events } = pass();
    const ran: string[] = [];
    const step = checkSpecFirst({
      problems: () => [],
      condition: 'InputReady',
      dependencies: [() => void ran.push('dependency')],
    });
    expect(await step(ctx)).toBeUndefined();
    expect(ran).toEqual([]);
    expect(events).toEqual([]);
  });

  it('reports every error in one message (False, Error), the dependencies beside, an Event, and stops', async () => {
    const { ctx, events } = pass();
    const broken = () => {
      throw new Error('API trouble');
    };
    const secretMissing = (c: Pass<KubeObject, object>) => {
      c.conditions.markFalse('InputReady', Reason.Error, Severity.Warning, 'Secret osp-secret missing');
    };
    const step = checkSpecFirst({
      problems: () => ['spec.a: bad', 'spec.b: worse'],
      condition: 'InputReady',
      dependencies: [secretMissing, broken, cacheMissing],
    });
    expect(await step(ctx)).toEqual({ stop: true });
    expect(ctx.conditions.get('InputReady')).toMatchObject({
      status: 'False',
      reason: 'Error',
      severity: 'Error',
      message: 'Invalid spec: spec.a: bad; spec.b: worse; Secret osp-secret missing',
    });
    expect(ctx.conditions.get('CacheReady')).toMatchObject({ status: 'False', message: 'cache missing' });
    expect(events).toEqual([
      { type: 'Warning', reason: 'InvalidSpec', message: 'Invalid spec: spec.a: bad; spec.b: worse' },
    ]);
  });

  it('records the Event once: not again while the message stays the same', async () => {
    const first = pass();
    const step = checkSpecFirst({ problems: () => ['spec.a: bad'], condition: 'InputReady' });
    await step(first.ctx);
    const { ctx, events } = pass({ conditions: first.ctx.conditions.toJSON() });
    await step(ctx);
    expect(events).toEqual([]);
  });
});
