import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import { getObject, useOperator } from './support/harness.js';
import { patchKeystoneSpec, readyKeystone } from './support/keystone.js';

type SecretObj = KubeObject & { data: Record<string, string> };
const ROTATED_AT = 'keystone.openstack.org/rotatedat';

const fernetValues = (s: SecretObj | undefined): string[] => {
  const data = s?.data ?? {};
  const out: string[] = [];
  for (let i = 0; data[`FernetKeys${i}`] !== undefined; i++) out.push(data[`FernetKeys${i}`]!);
  return out;
};
const keysSecret = (client: KubeClient, ns: string) =>
  getObject<SecretObj>(client, Kinds.Secret, ns, 'keystone');
const podTemplate = async (client: KubeClient, ns: string) =>
  JSON.stringify((await getObject(client, Kinds.Deployment, ns, 'keystone'))?.['spec']);
/** Sets fernetMaxActiveKeys and resolves with the key values once the Secret holds that many. */
async function maxKeys(client: KubeClient, ns: string, n: number): Promise<string[]> {
  await patchKeystoneSpec(client, ns, { fernetMaxActiveKeys: n });
  return waitUntil(`${n} keys`, async () => {
    const v = fernetValues(await keysSecret(client, ns));
    return v.length === n ? v : undefined;
  });
}

describe('fernet keys (upstream scenarios)', () => {
  const suite = useOperator({ beforeAll, afterAll });

  it('fernetMaxActiveKeys 3 gives exactly FernetKeys0..2; 100 gives 100', async () => {
    const { client, ns } = await readyKeystone(suite, { fernetMaxActiveKeys: 3 });
    const three = await keysSecret(client, ns);
    expect(
      Object.keys(three?.data ?? {})
        .filter((k) => k.startsWith('Fernet'))
        .sort(),
    ).toEqual(['FernetKeys0', 'FernetKeys1', 'FernetKeys2']);
    const hundred = await maxKeys(client, ns, 100);
    expect(new Set(hundred).size).toBe(100);
  });

  it('5 → 4 drops the oldest secondary; 4 → 5 → 6 adds fresh secondaries at index 1', async () => {
    const { client, ns } = await readyKeystone(suite);
    const five = fernetValues(await keysSecret(client, ns));
    expect(five).toHaveLength(5);
    const four = await maxKeys(client, ns, 4);
    expect(four).toEqual([five[0], five[2], five[3], five[4]]);
    const again = await maxKeys(client, ns, 5);
    expect(again[0]).toBe(four[0]);
    expect(again.slice(2)).toEqual(four.slice(1));
    expect(four).not.toContain(again[1]);
    const six = await maxKeys(client, ns, 6);
    expect(six[0]).toBe(again[0]);
    expect(six.slice(2)).toEqual(again.slice(1));
    expect(again).not.toContain(six[1]);
  });

  it('rotation (rotatedat moved back) shifts keys as upstream, keeps status.hash.input and restarts nothing', async () => {
    const { client, ns, ready } = await readyKeystone(suite);
    const before = await keysSecret(client, ns);
    const old = fernetValues(before);
    const templateBefore = await podTemplate(client, ns);
    const stamp = before?.metadata.annotations?.[ROTATED_AT] ?? '';
    const past = new Date(Date.parse(stamp) - 25 * 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await client.patch(
      Kinds.Secret,
      { name: 'keystone', namespace: ns },
      { metadata: { annotations: { [ROTATED_AT]: past } } },
      'merge',
    );
    const rotated = await waitUntil('rotated keys', async () => {
      const s = await keysSecret(client, ns);
      const v = fernetValues(s);
      return v[4] === old[0] ? s : undefined;
    });
    const now = fernetValues(rotated);
    expect(now.slice(0, 4)).toEqual([now[0], old[2], old[3], old[4]]);
    expect(old).not.toContain(now[0]);
    expect(now).not.toContain(old[1]);
    expect(Date.parse(rotated?.metadata.annotations?.[ROTATED_AT] ?? '')).toBeGreaterThan(Date.parse(past));
    const cr = await client.get<KubeObject & { status?: { hash?: Record<string, string> } }>(
      KeystoneKinds.KeystoneAPI,
      {
        name: 'keystone',
        namespace: ns,
      },
    );
    expect(cr?.status?.hash?.['input']).toBe(ready.status?.hash?.['input']);
    expect(await podTemplate(client, ns)).toBe(templateBefore);
  });
});
