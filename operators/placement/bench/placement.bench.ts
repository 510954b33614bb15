import { Kinds } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  conditionOf,
  createPlacementAPI,
  createPrerequisites,
  getPlacementAPI,
  simulateKeystoneRegistration,
} from '../test/support/fixtures.js';
import {
  adminClient,
  installCrds,
  newNamespace,
  type Operator,
  startOperator,
} from '../test/support/harness.js';

/**
 * Figures, not assertions: how long N PlacementAPIs (one per namespace) take from creation to
 * Ready on the local control plane (keystone registration simulated), how many API writes the
 * operator needs per PlacementAPI, and how many it makes when every object is reconciled again
 * without a change (the design says zero).
 */

const N = Number(process.env['BENCH_OBJECTS'] ?? 10);
const client = adminClient();
const namespaces: string[] = [];
let operator: Operator;

function report(name: string, value: number, unit: string, detail = ''): void {
  const shown = value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3);
  process.stdout.write(
    `placement-operator  ${name.padEnd(44)} ${shown.padStart(10)} ${unit}${detail ? `  (${detail})` : ''}\n`,
  );
}

const isReady = async (ns: string) =>
  conditionOf(await getPlacementAPI(client, ns), 'Ready')?.status === 'True';

beforeAll(async () => {
  await installCrds(client);
  for (let i = 0; i < N; i++) {
    const ns = await newNamespace(client, 'pl-bench');
    await createPrerequisites(client, ns);
    namespaces.push(ns);
  }
  operator = await startOperator({ namespaces });
});

afterAll(async () => {
  for (const ns of namespaces) await client.delete(PlacementAPIKind, { name: 'placement', namespace: ns });
  await waitUntil('PlacementAPIs deleted', async () => {
    for (const ns of namespaces) if (await getPlacementAPI(client, ns)) return false;
    return true;
  }).catch(() => undefined);
  await operator?.stop();
  for (const ns of namespaces) await client.delete(Kinds.Namespace, { name: ns });
  client.close();
});

describe(`${N} PlacementAPIs`, () => {
  it('converge, then cost nothing when nothing changed', async () => {
    const writes0 = operator.manager.client.requests.writes();
    const reconciles0 = await operator.reconciles();
    const started = performance.now();
    await Promise.all(namespaces.map((ns) => createPlacementAPI(client, ns)));
    await Promise.all(namespaces.map((ns) => simulateKeystoneRegistration(client, ns)));
    await waitUntil('all Ready', async () => (await Promise.all(namespaces.map(isReady))).every(Boolean), {
      timeoutMs: 300_000,
      intervalMs: 500,
    });
    const seconds = (performance.now() - started) / 1000;
    const writes = operator.manager.client.requests.writes() - writes0;
    const reconciles = (await operator.reconciles()) - reconciles0;
    report('creation to Ready (all)', seconds, 's', `${N} objects`);
    report('API writes per PlacementAPI to Ready', writes / N, 'writes');
    report('reconciles per PlacementAPI to Ready', reconciles / N, 'reconciles');

    // Let the last status writes and Events of the convergence land first.
    await new Promise((r) => setTimeout(r, 2000));
    const steadyWrites0 = operator.manager.client.requests.writes();
    const steadyReconciles0 = await operator.reconciles();
    await Promise.all(
      namespaces.map((ns) =>
        client.patch(
          PlacementAPIKind,
          { name: 'placement', namespace: ns },
          { metadata: { labels: { poke: '1' } } },
          'merge',
        ),
      ),
    );
    await waitUntil(
      'every object reconciled again',
      async () => (await operator.reconciles()) - steadyReconciles0 >= N,
    );
    report(
      'API writes when nothing changed',
      operator.manager.client.requests.writes() - steadyWrites0,
      'writes',
      `${N} reconciles`,
    );
  });
});
