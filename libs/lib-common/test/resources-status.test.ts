import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KindRef, Kinds, type KubeObject, type RestKubeClient } from '../src/client/index.js';
import { type Condition, Conditions, ConditionType } from '../src/conditions/index.js';
import { applyOwned, inputHash, patchStatusIfChanged } from '../src/objects/index.js';
import { buildCrd, conditionListSchema } from '../src/schema/index.js';
import { waitUntil } from '../src/testing/wait.js';
import { createNamespace, deleteNamespace, testClient } from './resources-support.js';

const Widget: KindRef = {
  group: 'resources.test.stackops.io',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

const crd = buildCrd({
  group: Widget.group,
  kind: Widget.kind,
  plural: Widget.plural,
  scope: 'Namespaced',
  versions: [
    {
      name: 'v1',
      served: true,
      storage: true,
      schema: Type.Object({
        spec: Type.Optional(Type.Object({ size: Type.Optional(Type.Integer()) })),
        status: Type.Optional(
          Type.Object({
            observedGeneration: Type.Optional(Type.Integer()),
            hash: Type.Optional(Type.Record(Type.String(), Type.String())),
            conditions: Type.Optional(conditionListSchema),
            note: Type.Optional(Type.String()),
          }),
        ),
      }),
    },
  ],
});

interface WidgetStatus {
  observedGeneration?: number;
  hash?: Record<string, string>;
  conditions?: Condition[];
  note?: string;
}
type WidgetObject = KubeObject & { spec?: { size?: number }; status?: WidgetStatus };

let client: RestKubeClient;
let ns: string;

beforeAll(async () => {
  client = testClient();
  await client.apply(Kinds.CustomResourceDefinition, crd as KubeObject, { force: true });
  await waitUntil('the Widget CRD to be served', async () => {
    const got = await client.get<KubeObject>(Kinds.CustomResourceDefinition, {
      name: `${Widget.plural}.${Widget.group}`,
    });
    const established = (
      got?.['status'] as { conditions?: { type: string; status: string }[] } | undefined
    )?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    return established ? true : undefined;
  });
  ns = await createNamespace(client, 'res-status');
});

afterAll(async () => {
  await deleteNamespace(client, ns);
  client.close();
});

async function createWidget(name: string): Promise<WidgetObject> {
  const created = await client.create<WidgetObject>(Widget, {
    apiVersion: `${Widget.group}/${Widget.version}`,
    kind: Widget.kind,
    metadata: { name, namespace: ns },
    spec: { size: 1 },
  });
  return created;
}

const fetchWidget = async (name: string) =>
  (await client.get<WidgetObject>(Widget, { name, namespace: ns })) as WidgetObject;

/** One reconcile as operators write it: conditions re-initialised, marked, Ready computed, times restored, status patched. */
async function reconcile(obj: WidgetObject, now: Date, configReady: boolean) {
  const saved = Conditions.from(obj.status?.conditions).list();
  const conds = new Conditions([], { now: () => now }).init([
    ConditionType.InputReady,
    ConditionType.DeploymentReady,
  ]);
  conds.markTrue(ConditionType.InputReady);
  if (configReady) conds.markTrue(ConditionType.DeploymentReady);
  else conds.markRequested(ConditionType.DeploymentReady);
  conds.computeReady().restoreLastTransitionTimes(saved);
  const { hashes } = inputHash(obj.status?.hash, { 'widget-config': String(obj.spec?.size) });
  const status: WidgetStatus = {
    observedGeneration: obj.metadata.generation,
    hash: hashes,
    conditions: conds.toJSON(),
  };
  return patchStatusIfChanged(client, Widget, obj, status);
}

describe('patchStatusIfChanged', () => {
  it('writes a changed status, then nothing on a reconcile whose inputs did not change', async () => {
    await createWidget('loop');
    const first = await reconcile(await fetchWidget('loop'), new Date('2024-05-01T10:00:00Z'), false);
    expect(first.patched).toBe(true);
    expect(first.object.status?.conditions?.[0]).toMatchObject({
      type: 'Ready',
      status: 'False',
      message: 'Deployment in progress',
    });

    const writes = client.requests.writes();
    const second = await reconcile(await fetchWidget('loop'), new Date('2024-05-01T10:05:00Z'), false);
    expect(second.patched).toBe(false);
    expect(client.requests.writes() - writes).toBe(0);

    const third = await reconcile(await fetchWidget('loop'), new Date('2024-05-01T10:10:00Z'), true);
    expect(third.patched).toBe(true);
    const byType = Object.fromEntries((third.object.status?.conditions ?? []).map((c) => [c.type, c]));
    expect(byType['InputReady']?.lastTransitionTime).toBe('2024-05-01T10:00:00Z');
    expect(byType['DeploymentReady']?.lastTransitionTime).toBe('2024-05-01T10:10:00Z');
    expect(byType['Ready']).toMatchObject({ status: 'True', message: 'Setup complete' });
  });

  it('compares ignoring key order, and removes keys the new status leaves out', async () => {
    const obj = await createWidget('keys');
    const { object } = await patchStatusIfChanged(client, Widget, obj, {
      note: 'x',
      hash: { b: '2', a: '1' },
    });
    const writes = client.requests.writes();
    const same = await patchStatusIfChanged(client, Widget, object, { hash: { a: '1', b: '2' }, note: 'x' });
    expect(same.patched).toBe(false);
    expect(client.requests.writes() - writes).toBe(0);

    const removed = await patchStatusIfChanged(client, Widget, object, { hash: { a: '1' } });
    expect(removed.patched).toBe(true);
    expect((await fetchWidget('keys')).status).toEqual({ hash: { a: '1' } });
  });

  it('in apply mode writes status with server-side apply, and skips an unchanged one', async () => {
    const obj = await createWidget('ssa');
    const status: WidgetStatus = { note: 'applied', hash: { input: 'h' } };
    const { patched, object } = await patchStatusIfChanged(client, Widget, obj, status, { mode: 'apply' });
    expect(patched).toBe(true);
    expect(object.status).toEqual(status);
    expect(object.spec).toEqual({ size: 1 });
    const again = await patchStatusIfChanged(client, Widget, object, { ...status }, { mode: 'apply' });
    expect(again.patched).toBe(false);
  });

  it('a status write does not touch spec or metadata (an owned object applied before stays as is)', async () => {
    const obj = await createWidget('spec-kept');
    await applyOwned(client, obj, Kinds.ConfigMap, {
      metadata: { name: 'spec-kept-child' },
      data: { a: '1' },
    });
    const { object } = await patchStatusIfChanged(client, Widget, obj, { note: 'n' });
    expect(object.spec).toEqual({ size: 1 });
    expect(object.metadata.generation).toBe(obj.metadata.generation);
  });
});
