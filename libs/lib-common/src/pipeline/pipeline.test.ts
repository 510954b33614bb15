import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { Widget } from '../../test/support/widget.js';
import { ApiError } from '../client/errors.js';
import type { KindRef } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { Conditions } from '../conditions/index.js';
import type { ReconcileContext } from '../runtime/controller.js';
import { ReconcileError } from '../runtime/error-policy.js';
import type { EventType } from '../runtime/recorder.js';
import { type Pass, type PipelineDefinition, pipeline, type StatusOf } from './pipeline.js';
import { runSteps, stop, whileWaiting } from './step.js';

const widget = (over: Partial<Widget['metadata']> = {}, status?: Widget['status']): Widget => ({
  apiVersion: 'example.dev/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', uid: 'u1', resourceVersion: '1', generation: 2, ...over },
  spec: { size: 3 },
  ...(status ? { status } : {}),
});

/** Records status patches and finalizer patches; answers like the API server would. */
function stubClient(opts: { statusError?: unknown } = {}) {
  const calls: { type: string; subresource?: string; body: unknown }[] = [];
  const client = {
    fieldManager: 'test',
    patch: async (
      _k: KindRef,
      ref: { name: string },
      body: unknown,
      type: string,
      o?: { subresource?: string },
    ) => {
      calls.push({ type, ...(o?.subresource ? { subresource: o.subresource } : {}), body });
      if (o?.subresource === 'status' && opts.statusError) throw opts.statusError;
      if (type === 'json') {
        const add = (body as { op: string; value: unknown }[]).find((p) => p.op === 'add');
        return {
          ...widget({ resourceVersion: '2' }),
          metadata: {
            ...widget().metadata,
            name: ref.name,
            resourceVersion: '2',
            finalizers: add ? [].concat(add.value as never) : [],
          },
        };
      }
      return widget();
    },
  } as unknown as KubeClient;
  return { client, calls };
}

function context(client: KubeClient) {
  const events: { type: EventType; reason: string; message: string }[] = [];
  const rc = {
    client,
    cache: { get: () => undefined, list: () => [] },
    recorder: {
      event: async (_o: KubeObject, type: EventType, reason: string, message: string) => {
        events.push({ type, reason, message });
      },
    },
    log: pino({ level: 'silent' }),
    key: 'ns/w',
    ref: { namespace: 'ns', name: 'w' },
    signal: new AbortController().signal,
    controller: 'widget',
  } as unknown as ReconcileContext;
  return { rc, events };
}

const fixedNow = () => new Date('2024-01-02T03:04:05Z');

describe('runSteps', () => {
  it('runs steps in order until one stops, and names it', async () => {
    const seen: string[] = [];
    const first = async () => {
      seen.push('first');
    };
    const second = async () => {
      seen.push('second');
      return stop(1000);
    };
    const third = async () => {
      seen.push('third');
    };
    expect(await runSteps([first, second, third], {})).toEqual({ stoppedAt: 'second', requeueAfterMs: 1000 });
    expect(seen).toEqual(['first', 'second']);
  });

  it('ends between steps once the signal aborted', async () => {
    const ac = new AbortController();
    const seen: string[] = [];
    const abort = () => {
      seen.push('abort');
      ac.abort();
    };
    const after = () => {
      seen.push('after');
    };
    expect(await runSteps([abort, after], {}, { signal: ac.signal })).toEqual({ stoppedAt: 'aborted' });
    expect(seen).toEqual(['abort']);
  });
});

describe('whileWaiting', () => {
  const pass = () => ({
    conditions: new Conditions().init(['DBReady', 'CreateServiceReady']),
    status: { hash: { a: '1' } } as Record<string, unknown>,
  });
  type P = ReturnType<typeof pass>;

  it('while the step waits, runs the others for their writes and drops what they reported', async () => {
    const writes: string[] = [];
    const wait = (ctx: P) => {
      ctx.conditions.markRequested('DBReady');
      return stop(5000);
    };
    const services = async (ctx: P) => {
      writes.push('services');
      ctx.status.apiEndpoints = { internal: 'http://x' };
      ctx.conditions.markTrue('CreateServiceReady');
      return stop(1);
    };
    const failing = async (ctx: P) => {
      writes.push('pdb');
      ctx.conditions.markError('CreateServiceReady', 'refused');
      throw new Error('refused');
    };
    const ctx = pass();
    const before = ctx.conditions.list();
    const step = whileWaiting(wait, services, failing);
    expect(step.name).toBe('wait');
    expect(await runSteps([step], ctx)).toEqual({ stoppedAt: 'wait', requeueAfterMs: 5000 });
    expect(writes.sort()).toEqual(['pdb', 'services']);
    expect(ctx.status).toEqual({ hash: { a: '1' } });
    expect(ctx.conditions.get('CreateServiceReady')).toEqual(
      before.find((c) => c.type === 'CreateServiceReady'),
    );
    expect(ctx.conditions.get('DBReady')?.reason).toBe('Requested');
  });

  it('when the step goes on, the others wait for their own place', async () => {
    const seen: string[] = [];
    const step = whileWaiting(
      () => {
        seen.push('db');
      },
      () => {
        seen.push('services');
      },
    );
    expect(await runSteps([step], pass())).toEqual({});
    expect(seen).toEqual(['db']);
  });
});

/** A Widget pipeline reporting InputReady whose one step throws `err`. */
const throwingPipeline = (
  err: unknown,
  def: Partial<PipelineDefinition<Widget, StatusOf<Widget>, Pass<Widget>>> = {},
) =>
  pipeline<Widget>({
    kind: Widget,
    conditions: ['InputReady'],
    steps: [
      () => {
        throw err;
      },
    ],
    ...def,
  });

describe('pipeline', () => {
  it('a replaced CRD schema: CRDSchemaCurrent False (Warning) beside a True Ready, one Event; dropped silently once the CRD is ours', async () => {
    const stub = stubClient();
    const { rc, events } = context(stub.client);
    // Steps that keep the previous conditions and set Ready themselves: the condition must not leak in.
    const markReady = (p: Pass<Widget>) => void p.conditions.markTrue('Ready', 'ok');
    const reconcile = pipeline<Widget>({ kind: Widget, steps: [markReady], now: fixedNow });
    type Written = { status: { conditions: { type: string; status: string; severity?: string }[] } };
    const written = () => {
      const last = stub.calls.filter((c) => c.subresource === 'status').at(-1);
      if (!last) throw new Error('no status written');
      return (last.body as Written).status;
    };
    const drifted = { ...rc, crdSchemaMismatch: 'CustomResourceDefinition widgets.example.dev is not ours' };

    await reconcile(widget(), drifted);
    const first = written();
    expect(first.conditions.find((c) => c.type === 'CRDSchemaCurrent')).toMatchObject({
      status: 'False',
      severity: 'Warning',
      reason: 'CRDSchemaMismatch',
    });
    expect(first.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    // The same verdict again: nothing new to say.
    await reconcile(widget({ resourceVersion: '3' }, first), drifted);
    await reconcile(widget({ resourceVersion: '4' }, first), rc);
    expect(written().conditions.map((c) => c.type)).not.toContain('CRDSchemaCurrent');
    expect(events.filter((e) => e.reason === 'CRDSchemaMismatch')).toEqual([
      { type: 'Warning', reason: 'CRDSchemaMismatch', message: drifted.crdSchemaMismatch },
    ]);
  });

  it('initialises conditions, computes Ready, patches status once and announces Ready', async () => {
    const { client, calls } = stubClient();
    const { rc, events } = context(client);
    const reconcile = pipeline<Widget>({
      kind: Widget,
      conditions: ['InputReady'],
      steps: [
        (p: Pass<Widget>) => {
          p.conditions.markTrue('InputReady', 'input ok');
          (p.status as { size?: number }).size = p.cr.spec.size;
        },
      ],
      now: fixedNow,
    });
    expect(await reconcile(widget(), rc)).toEqual({});
    const statusPatches = calls.filter((c) => c.subresource === 'status');
    expect(statusPatches).toHaveLength(1);
    const body = statusPatches[0]?.body as {
      status: { conditions: { type: string; status: string }[]; size: number; observedGeneration: number };
    };
    expect(body.status.size).toBe(3);
    expect(body.status.observedGeneration).toBe(2);
    expect(body.status.conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Ready=True',
      'InputReady=True',
    ]);
    expect(events).toEqual([{ type: 'Normal', reason: 'Ready', message: 'Setup complete' }]);
  });

  it('writes nothing when the outcome equals the previous status', async () => {
    const time = '2024-01-01T00:00:00Z';
    const previous = {
      observedGeneration: 2,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Ready',
          message: 'Setup complete',
          lastTransitionTime: time,
        },
        {
          type: 'InputReady',
          status: 'True',
          reason: 'Ready',
          message: 'Input data complete',
          lastTransitionTime: time,
        },
      ],
    };
    const { client, calls } = stubClient();
    const { rc, events } = context(client);
    const reconcile = pipeline<Widget>({
      kind: Widget,
      conditions: ['InputReady'],
      steps: [(p: Pass<Widget>) => void p.conditions.markTrue('InputReady')],
      now: fixedNow,
    });
    await reconcile(widget({}, previous), rc);
    expect(calls).toEqual([]);
    expect(events).toEqual([]);
  });

  it('a stop ends the pass with its requeue; requeueAfter asks for the earliest wake', async () => {
    const { client } = stubClient();
    const { rc } = context(client);
    const seen: string[] = [];
    const reconcile = pipeline<Widget>({
      kind: Widget,
      steps: [
        (p: Pass<Widget>) => {
          p.requeueAfter(5000);
          p.requeueAfter(9000);
        },
        function waitForInput() {
          return stop(7000);
        },
        () => {
          seen.push('never');
        },
      ],
    });
    expect(await reconcile(widget(), rc)).toEqual({ requeueAfterMs: 5000 });
    expect(seen).toEqual([]);
  });

  it('writes the status when a step throws, then rethrows for the error policy', async () => {
    const { client, calls } = stubClient();
    const { rc, events } = context(client);
    const err = new ReconcileError('bad input', {
      reason: 'InvalidSize',
      severity: 'Error',
      retry: 'terminal',
    });
    const reconcile = throwingPipeline(err, {
      failed: (p, e) => void p.conditions.markFalse('InputReady', 'Error', 'Error', (e as Error).message),
      now: fixedNow,
    });
    await expect(reconcile(widget(), rc)).rejects.toBe(err);
    const body = calls.find((c) => c.subresource === 'status')?.body as {
      status: { conditions: { type: string; status: string; message: string }[] };
    };
    expect(body.status.conditions[0]).toMatchObject({ type: 'Ready', status: 'False', message: 'bad input' });
    expect(events).toEqual([]);
  });

  it('a write refused by a terminating namespace ends the pass quietly', async () => {
    const terminating = new ApiError({
      code: 403,
      reason: 'Forbidden',
      message: 'x is forbidden: unable to create new content in namespace ns because it is being terminated',
      details: { causes: [{ type: 'NamespaceTerminating' }] },
    });
    const { client } = stubClient({ statusError: terminating });
    const { rc } = context(client);
    const reconcile = throwingPipeline(terminating);
    expect(await reconcile(widget(), rc)).toEqual({});
  });

  it('adds the finalizer before the steps, and on deletion runs cleanup then removes it', async () => {
    const { client, calls } = stubClient();
    const { rc } = context(client);
    const seen: string[] = [];
    const reconcile = pipeline<Widget>({
      kind: Widget,
      finalizer: { name: 'example.dev/widget', cleanup: [() => void seen.push('cleanup')] },
      steps: [(p: Pass<Widget>) => void seen.push(`step sees ${p.cr.metadata.finalizers?.join(',')}`)],
    });
    await reconcile(widget(), rc);
    expect(seen).toEqual(['step sees example.dev/widget']);
    expect(calls[0]).toMatchObject({ type: 'json' });

    calls.length = 0;
    await reconcile(
      widget({ deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['example.dev/widget'] }),
      rc,
    );
    expect(seen).toEqual(['step sees example.dev/widget', 'cleanup']);
    expect(calls).toEqual([
      {
        type: 'json',
        body: [
          { op: 'test', path: '/metadata/finalizers/0', value: 'example.dev/widget' },
          { op: 'remove', path: '/metadata/finalizers/0' },
        ],
      },
    ]);
  });

  it('a cleanup step that stops keeps the finalizer', async () => {
    const { client, calls } = stubClient();
    const { rc } = context(client);
    const reconcile = pipeline<Widget>({
      kind: Widget,
      finalizer: { name: 'example.dev/widget', cleanup: [() => stop(1000)] },
      steps: [],
    });
    const out = await reconcile(
      widget({ deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['example.dev/widget'] }),
      rc,
    );
    expect(out).toEqual({ requeueAfterMs: 1000 });
    expect(calls).toEqual([]);
  });
});

describe('pipeline: the openstack.org/paused annotation', () => {
  const paused = { annotations: { 'openstack.org/paused': 'false' } };
  const seen: string[] = [];
  const reconcile = pipeline<Widget>({
    kind: Widget,
    conditions: ['InputReady'],
    steps: [
      (p: Pass<Widget>) => {
        seen.push('step');
        p.conditions.markTrue('InputReady');
      },
    ],
    finalizer: { name: 'example.dev/w', cleanup: [() => void seen.push('cleanup')] },
    now: fixedNow,
  });
  const previous = {
    observedGeneration: 1,
    conditions: [
      { type: 'Ready', status: 'True', reason: 'Ready', lastTransitionTime: '2024-01-01T00:00:00Z' },
    ],
  };

  it('any value pauses: no finalizer, no step; the previous status gains Paused, once, with an Event', async () => {
    seen.length = 0;
    const { client, calls } = stubClient();
    const { rc, events } = context(client);
    expect(await reconcile(widget(paused, previous), rc)).toEqual({});
    expect(seen).toEqual([]);
    expect(calls).toHaveLength(1);
    const body = calls[0]?.body as { status: typeof previous };
    expect(calls[0]?.subresource).toBe('status');
    expect(body.status.observedGeneration).toBeUndefined(); // unchanged: the spec was not acted on
    expect(body.status.conditions.map((c) => `${c.type}=${c.status}`)).toEqual(['Ready=True', 'Paused=True']);
    expect(events.map((e) => e.reason)).toEqual(['Paused']);

    const { client: again, calls: none } = stubClient();
    const { rc: rc2, events: quiet } = context(again);
    const stored = { ...previous, conditions: body.status.conditions };
    await reconcile(widget({ ...paused, finalizers: ['example.dev/w'] }, stored), rc2);
    await reconcile(
      widget({ ...paused, finalizers: ['example.dev/w'], deletionTimestamp: '2024-01-02T00:00:00Z' }, stored),
      rc2,
    );
    expect(none).toEqual([]);
    expect(quiet).toEqual([]);
    expect(seen).toEqual([]); // not even the cleanup of a deleted object
  });

  it('once the annotation is gone the steps run again and the Paused condition goes, with an Event', async () => {
    seen.length = 0;
    const { client, calls } = stubClient();
    const { rc, events } = context(client);
    const stored = {
      ...previous,
      conditions: [...previous.conditions, { type: 'Paused', status: 'True', lastTransitionTime: 'x' }],
    };
    await reconcile(widget({ finalizers: ['example.dev/w'] }, stored), rc);
    expect(seen).toEqual(['step']);
    const body = calls.find((c) => c.subresource === 'status')?.body as { status: typeof previous };
    expect(body.status.conditions.map((c) => c.type)).toEqual(['Ready', 'InputReady']);
    expect(events.map((e) => e.reason)).toEqual(['Resumed']);
  });
});
