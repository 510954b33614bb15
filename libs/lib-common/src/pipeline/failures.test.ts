import { describe, expect, it } from 'vitest';
import { Widget } from '../../test/support/widget.js';
import { apiErrorFromResponse } from '../client/errors.js';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { applyOwned } from '../objects/apply.js';
import { conditionOf } from '../testing/conditions.js';
import { FakeKubeClient, FakeRecorder, reconcileOnce } from '../testing/fake.js';
import { type Pass, type PipelineDefinition, pipeline, type StatusOf } from './pipeline.js';
import { reports, type Step } from './step.js';

type WidgetPass = Pass<Widget, NonNullable<Widget['status']>>;
const widget = (name: string, created = '2026-01-01T00:00:00Z'): Widget => ({
  apiVersion: 'example.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'ns', creationTimestamp: created },
  spec: { size: 1 },
});
/** One pass of a Widget pipeline (`def`, the kind aside) over a fake holding only Widget `ns/w`. */
async function passOverW(def: Omit<PipelineDefinition<Widget, StatusOf<Widget>, Pass<Widget>>, 'kind'>) {
  const fake = new FakeKubeClient();
  fake.seed(Widget, widget('w'));
  const reconciler = pipeline<Widget>({ kind: Widget, ...def });
  return { fake, ...(await reconcileOnce(fake, Widget, { namespace: 'ns', name: 'w' }, reconciler)) };
}

const condition = (fake: FakeKubeClient, name: string, type: string) =>
  conditionOf(fake.peek(Widget, { namespace: 'ns', name }), type);

/** The API server's answer to a Job whose name makes a 64-character label and whose nodeSelector is invalid. */
const invalidJob = () =>
  apiErrorFromResponse(
    422,
    {
      kind: 'Status',
      message: `Job.batch "${'a'.repeat(62)}-db-create" is invalid: [spec.template.labels: …]`,
      reason: 'Invalid',
      details: {
        name: `${'a'.repeat(62)}-db-create`,
        group: 'batch',
        kind: 'Job',
        causes: [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: "${'a'.repeat(62)}-db-create": must be no more than 63 characters`,
            field: 'spec.template.labels',
          },
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: "${'a'.repeat(62)}-db-create": must be no more than 63 characters`,
            field: 'spec.template.labels',
          },
          {
            reason: 'FieldValueInvalid',
            message:
              "Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
            field: 'spec.template.spec.nodeSelector',
          },
        ],
      },
      code: 422,
    },
    { verb: 'PATCH', path: `/apis/batch/v1/namespaces/ns/jobs/x?fieldManager=stackops&force=true` },
  );

const job = (name: string): KubeObject => ({ metadata: { name, namespace: 'ns' }, spec: {} }) as KubeObject;

describe('pipeline: failures on the CR', () => {
  it('a step the API server refuses turns its condition False (Error), names object and field, no verb or URL, and records an Event', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Widget, widget('w'));
    fake.failOn({ verb: 'apply', kind: 'Job' }, invalidJob());
    const reconciler = pipeline<
      Widget,
      NonNullable<Widget['status']>,
      Pass<Widget, NonNullable<Widget['status']>>
    >({
      kind: Widget,
      conditions: ['InputReady', 'DBReady', 'DeploymentReady'],
      steps: [
        function checkInput(ctx) {
          ctx.conditions.markTrue('InputReady');
        },
        reports('DBReady', async function ensureDatabase(ctx) {
          await applyOwned(ctx.client, ctx.cr, Kinds.Job, job('x'), { current: null });
        }),
      ],
    });
    await expect(reconcileOnce(fake, Widget, { namespace: 'ns', name: 'w' }, reconciler)).rejects.toThrow(
      /422/,
    );
    const db = condition(fake, 'w', 'DBReady');
    expect(db).toMatchObject({ status: 'False', severity: 'Error', reason: 'Error' });
    expect(db?.message).toMatch(
      /^Job a+… is invalid: spec\.template\.labels: "a+…": must be no more than 63 characters; spec\.template\.spec\.nodeSelector: "bad key!": name part/,
    );
    expect(db?.message?.length).toBeLessThanOrEqual(200);
    expect(db?.message).not.toMatch(/PATCH|\/apis\/|fieldManager|force=true|regex/);
    expect(condition(fake, 'w', 'Ready')).toMatchObject({
      status: 'False',
      severity: 'Error',
      message: db?.message,
    });
    expect(condition(fake, 'w', 'DeploymentReady')).toMatchObject({ status: 'Unknown' });
    const recorder = new FakeRecorder();
    await reconcileOnce(fake, Widget, { namespace: 'ns', name: 'w' }, reconciler, {
      recorder,
    }).catch(() => undefined);
    expect(recorder.events).toContainEqual(
      expect.objectContaining({ type: 'Warning', reason: 'InvalidObject', message: db?.message }),
    );
  });

  it.each([
    ['declares', (step: Step<WidgetPass>) => reports('DBReady', step), 'DBReady'],
    ['declares nothing', (step: Step<WidgetPass>) => step, 'Ready'],
  ])(
    'a step listed after a condition that is not True yet, that %s: never that earlier condition',
    async (_what, declare, expected) => {
      const fake = new FakeKubeClient();
      fake.seed(Widget, widget('w'));
      fake.failOn({ verb: 'apply', kind: 'Job' }, invalidJob());
      const reconciler = pipeline<Widget, NonNullable<Widget['status']>, WidgetPass>({
        kind: Widget,
        // TLSInputReady is listed first but checked last, as upstream lists KeystoneAPI's.
        conditions: ['TLSInputReady', 'DBReady'],
        steps: [
          declare(async function ensureDatabase(ctx) {
            await applyOwned(ctx.client, ctx.cr, Kinds.Job, job('x'), { current: null });
          }),
          function checkTls(ctx) {
            ctx.conditions.markTrue('TLSInputReady');
          },
        ],
      });
      await expect(reconcileOnce(fake, Widget, { namespace: 'ns', name: 'w' }, reconciler)).rejects.toThrow(
        /422/,
      );
      expect(condition(fake, 'w', 'TLSInputReady')).toMatchObject({ status: 'Unknown', reason: 'Init' });
      expect(condition(fake, 'w', expected)).toMatchObject({
        status: 'False',
        reason: 'Error',
        severity: 'Error',
      });
      expect(condition(fake, 'w', 'Ready')).toMatchObject({ status: 'False' });
    },
  );

  it('a step that turned its own condition False and threw: that condition, with its words when the error is not the API server’s', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Widget, widget('w'));
    const reconciler = pipeline<Widget, NonNullable<Widget['status']>, WidgetPass>({
      kind: Widget,
      conditions: ['InputReady', 'DBReady'],
      steps: [
        reports('InputReady', function checkInput(ctx) {
          ctx.conditions.markFalse('DBReady', 'Error', 'Warning', 'DB create error occurred: refused');
          throw new Error('refused');
        }),
      ],
    });
    const { events } = await reconcileOnce(fake, Widget, { namespace: 'ns', name: 'w' }, reconciler, {
      recorder: new FakeRecorder(),
    }).catch(() => ({ events: [] }));
    expect(condition(fake, 'w', 'InputReady')).toMatchObject({ status: 'Unknown' });
    expect(condition(fake, 'w', 'DBReady')).toMatchObject({
      status: 'False',
      message: 'DB create error occurred: refused',
    });
    expect(events).toEqual([]);
  });

  it('a failed JSON Patch test (422 without causes) is a conflict: no condition, no Event, retried in a second', async () => {
    const { fake, result, events } = await passOverW({
      conditions: ['InputReady'],
      steps: [
        () => {
          throw apiErrorFromResponse(
            422,
            {
              kind: 'Status',
              message: 'the server rejected our request due to an error in our request',
              reason: 'Invalid',
              details: {},
              code: 422,
            },
            { verb: 'PATCH', path: '/api/v1/namespaces/ns/configmaps/c' },
          );
        },
      ],
    });
    expect(result).toEqual({ requeueAfterMs: 1000 });
    expect(events).toEqual([]);
    expect(condition(fake, 'w', 'InputReady')).toMatchObject({ status: 'Unknown', reason: 'Init' });
  });

  it('what the steps create, update and delete: one Event each (and nothing when nothing changed)', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Widget, widget('w'));
    let names = ['a', 'b'];
    const reconciler = pipeline<Widget>({
      kind: Widget,
      steps: [
        async function ensureJobs(ctx) {
          for (const n of names) {
            const current = ctx.cache.get<KubeObject>(Kinds.ConfigMap, { namespace: 'ns', name: n }) ?? null;
            await applyOwned(
              ctx.client,
              ctx.cr,
              Kinds.ConfigMap,
              { ...job(n), data: { size: String(ctx.cr.spec.size) } } as KubeObject,
              { current },
            );
          }
          for (const cm of ctx.cache.list<KubeObject>(Kinds.ConfigMap, { namespace: 'ns' }))
            if (!names.includes(cm.metadata.name ?? ''))
              await ctx.client.delete(Kinds.ConfigMap, { namespace: 'ns', name: cm.metadata.name ?? '' });
        },
      ],
    });
    const ref = { namespace: 'ns', name: 'w' };
    const first = await reconcileOnce(fake, Widget, ref, reconciler);
    expect(first.events.filter((e) => e.reason.startsWith('Successful'))).toEqual([
      expect.objectContaining({ type: 'Normal', reason: 'SuccessfulCreate', message: 'Created ConfigMap a' }),
      expect.objectContaining({ type: 'Normal', reason: 'SuccessfulCreate', message: 'Created ConfigMap b' }),
    ]);
    expect((await reconcileOnce(fake, Widget, ref, reconciler)).events).toEqual([]);
    fake.seed(Widget, { ...widget('w'), spec: { size: 2 } });
    names = ['a'];
    const second = await reconcileOnce(fake, Widget, ref, reconciler);
    expect(second.events.map((e) => `${e.reason} ${e.message}`)).toEqual([
      'SuccessfulUpdate Updated ConfigMap a',
      'SuccessfulDelete Deleted ConfigMap b',
    ]);
  });

  it('eventKinds: only writes of those kinds record an Event, the others are logged only', async () => {
    const { fake, events } = await passOverW({
      eventKinds: ['Secret'],
      steps: [
        async function ensureObjects(ctx) {
          await applyOwned(ctx.client, ctx.cr, Kinds.ConfigMap, job('a'), { current: null });
          await applyOwned(ctx.client, ctx.cr, Kinds.Secret, job('s'), { current: null });
        },
      ],
    });
    expect(events.map((e) => `${e.reason} ${e.message}`)).toEqual(['SuccessfulCreate Created Secret s']);
    expect(fake.peek(Kinds.ConfigMap, { namespace: 'ns', name: 'a' })).toBeDefined();
  });

  it('onePerNamespace: the younger is refused with a condition and one Event, and writes nothing else', async () => {
    const fake = new FakeKubeClient();
    fake.seed(Widget, widget('first', '2026-01-01T00:00:00Z'), widget('second', '2026-01-01T00:00:05Z'));
    const reconciler = pipeline<Widget>({
      kind: Widget,
      onePerNamespace: true,
      conditions: ['InputReady'],
      finalizer: { name: 'example.dev/widget' },
      steps: [
        async (ctx) => {
          await applyOwned(ctx.client, ctx.cr, Kinds.Secret, job('fixed'), { current: null });
        },
      ],
    });
    const before = fake.writes();
    const { result, events } = await reconcileOnce(
      fake,
      Widget,
      { namespace: 'ns', name: 'second' },
      reconciler,
    );
    expect(result).toEqual({ requeueAfterMs: 30_000 });
    expect(fake.writes() - before).toBe(1); // its status
    expect(fake.peek(Kinds.Secret, { namespace: 'ns', name: 'fixed' })).toBeUndefined();
    expect(
      fake.peek<Widget>(Widget, { namespace: 'ns', name: 'second' })?.metadata.finalizers,
    ).toBeUndefined();
    expect(condition(fake, 'second', 'Ready')).toMatchObject({
      status: 'False',
      severity: 'Error',
      message: expect.stringContaining('Widget first already runs in ns'),
    });
    expect(events).toEqual([expect.objectContaining({ type: 'Warning', reason: 'DuplicateInNamespace' })]);
    const again = fake.writes();
    expect(
      (await reconcileOnce(fake, Widget, { namespace: 'ns', name: 'second' }, reconciler)).events,
    ).toEqual([]);
    expect(fake.writes()).toBe(again);
    await reconcileOnce(fake, Widget, { namespace: 'ns', name: 'first' }, reconciler);
    expect(fake.peek(Kinds.Secret, { namespace: 'ns', name: 'fixed' })).toBeDefined();
  });

  it('a 300-character value is cut in the condition message', async () => {
    const { fake } = await passOverW({
      conditions: ['InputReady'],
      steps: [(ctx) => void ctx.conditions.markError('InputReady', `database ${'x'.repeat(300)} not found`)],
    });
    const message = condition(fake, 'w', 'InputReady')?.message ?? '';
    expect(message.length).toBeLessThanOrEqual(200);
    expect(message.endsWith('…')).toBe(true);
  });
});
