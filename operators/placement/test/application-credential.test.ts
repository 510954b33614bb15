import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { eventsIn, waitForDeletion, waitUntil } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlacementAPIKind } from '../src/api/kinds.js';
import {
  conditionOf,
  configFile,
  createPlacementAPI,
  createPrerequisites,
  waitForCondition,
} from './support/fixtures.js';
import { useOperator } from './support/harness.js';

type Deployment = KubeObject & {
  spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } };
};

/** The Go operators' name, so that a switch either way keeps the Secret held. */
const CONSUMER = 'openstack.org/placementapi-ac-consumer';
/** The name earlier stackops releases held Secrets under. */
const EARLIER_CONSUMER = 'openstack.org/placement-ac-consumer';
const suite = useOperator({ beforeAll, afterAll }, 1);

/** A Secret as keystone-operator's KeystoneApplicationCredential writes it. */
const createAcSecret = (ns: string, name: string, data: Record<string, string>, finalizers?: string[]) =>
  suite.client.create(Kinds.Secret, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: ns,
      ...(finalizers ? { finalizers } : {}),
      labels: { 'application-credentials': 'true', 'application-credential-service': 'placement' },
    },
    immutable: true,
    stringData: data,
  } as KubeObject);

const finalizersOf = async (ns: string, name: string) =>
  (await suite.client.get(Kinds.Secret, { namespace: ns, name }))?.metadata.finalizers ?? [];

const heldInStatus = async (ns: string) =>
  (
    (await suite.client.get(PlacementAPIKind, { namespace: ns, name: 'placement' })) as
      | (KubeObject & { status?: { applicationCredentialSecret?: string } })
      | undefined
  )?.status?.applicationCredentialSecret;

const setSecret = (ns: string, name: string) =>
  suite.client.patch(
    PlacementAPIKind,
    { namespace: ns, name: 'placement' },
    { spec: { auth: { applicationCredentialSecret: name } } },
    'merge',
  );

const deletePlacement = async (ns: string) => {
  await suite.client.delete(PlacementAPIKind, { namespace: ns, name: 'placement' });
  await waitForDeletion(
    suite.client,
    PlacementAPIKind,
    { namespace: ns, name: 'placement' },
    { timeoutMs: 30_000 },
  );
};

const configHash = async (ns: string) =>
  (
    await suite.client.get<Deployment>(Kinds.Deployment, { namespace: ns, name: 'placement' })
  )?.spec.template.spec.containers[0]?.env?.find((e) => e.name === 'CONFIG_HASH')?.value;

describe('spec.auth.applicationCredentialSecret', () => {
  it('placement.conf logs in with the application credential of the Secret watched by name; a new Secret rolls the pods and moves the consumer finalizer', async () => {
    const { client } = suite;
    const ns = suite.namespaces[0]!;
    await createPrerequisites(client, ns);
    await createPlacementAPI(client, ns, {
      auth: { applicationCredentialSecret: 'ac-placement-aaaaa-secret' },
    });
    const waiting = await waitForCondition(client, ns, 'ServiceConfigReady', 'False', {
      message: /ac-placement-aaaaa-secret/,
    });
    expect(conditionOf(waiting, 'ServiceConfigReady')?.message).toBe(
      'ApplicationCredential secret not found: ac-placement-aaaaa-secret (spec.auth.applicationCredentialSecret)',
    );

    // The Secret appearing wakes the reconcile (watched by name).
    await createAcSecret(ns, 'ac-placement-aaaaa-secret', { AC_ID: 'id-aaaaa', AC_SECRET: 'secret-aaaaa' });
    const conf = await waitUntil('placement.conf with the credential', async () => {
      const c = await configFile(client, ns, 'placement.conf');
      return c?.includes('application_credential_id = id-aaaaa') ? c : undefined;
    });
    expect(conf).toContain('auth_type = v3applicationcredential\n');
    expect(conf).toContain('application_credential_secret = secret-aaaaa\n');
    expect(conf).not.toContain('auth_type = password');
    expect(conf).not.toContain('password = placement-pw');
    expect(conf).toContain('service_type = placement\n');
    expect(await finalizersOf(ns, 'ac-placement-aaaaa-secret')).toEqual([CONSUMER]);
    const firstHash = await waitUntil('Deployment with CONFIG_HASH', () => configHash(ns), {
      timeoutMs: 90_000,
    });
    // The status names the Secret once the pods run with it.
    await waitUntil('status.applicationCredentialSecret', async () =>
      (await heldInStatus(ns)) === 'ac-placement-aaaaa-secret' ? true : undefined,
    );

    // Rotation: openstack-operator names the new Secret; the pods roll, the finalizer moves.
    await createAcSecret(ns, 'ac-placement-bbbbb-secret', { AC_ID: 'id-bbbbb', AC_SECRET: 'secret-bbbbb' });
    await setSecret(ns, 'ac-placement-bbbbb-secret');
    await waitUntil('a new CONFIG_HASH', async () => {
      const h = await configHash(ns);
      return h && h !== firstHash ? h : undefined;
    });
    expect(await configFile(client, ns, 'placement.conf')).toContain('application_credential_id = id-bbbbb');
    expect(await finalizersOf(ns, 'ac-placement-bbbbb-secret')).toEqual([CONSUMER]);
    // The old Secret is let go of, and the status moves, once the rolled pods are ready.
    await waitUntil('status.applicationCredentialSecret moved to the new Secret', async () =>
      (await heldInStatus(ns)) === 'ac-placement-bbbbb-secret' ? true : undefined,
    );
    expect(await finalizersOf(ns, 'ac-placement-aaaaa-secret')).toEqual([]);

    // A Secret without AC_SECRET is an error naming the field, with an Event; the config stays.
    await createAcSecret(ns, 'ac-placement-ccccc-secret', { AC_ID: 'id-ccccc' });
    await setSecret(ns, 'ac-placement-ccccc-secret');
    const bad = await waitForCondition(client, ns, 'ServiceConfigReady', 'False', { message: /ccccc/ });
    expect(conditionOf(bad, 'ServiceConfigReady')).toMatchObject({
      severity: 'Error',
      message:
        'ApplicationCredential secret missing required keys: ac-placement-ccccc-secret needs AC_ID and AC_SECRET (spec.auth.applicationCredentialSecret)',
    });
    await waitUntil('InvalidSpec event', async () =>
      (await eventsIn(client, ns)).find(
        (e) => e.reason === 'InvalidSpec' && e.message?.includes('ac-placement-ccccc-secret'),
      ),
    );
    expect(await configFile(client, ns, 'placement.conf')).toContain('application_credential_id = id-bbbbb');

    // Back to the password: placement.conf logs in as the service user and the Secret is let go;
    // naming it again holds it again.
    await setSecret(ns, '');
    await waitUntil('placement.conf with the password', async () =>
      (await configFile(client, ns, 'placement.conf'))?.includes('auth_type = password') ? true : undefined,
    );
    await waitUntil('consumer finalizer released', async () =>
      (await finalizersOf(ns, 'ac-placement-bbbbb-secret')).length === 0 ? true : undefined,
    );
    // The pass releases the finalizer first and writes its status after: the status may come later.
    await waitUntil('status.applicationCredentialSecret cleared', async () =>
      (await heldInStatus(ns)) === undefined ? true : undefined,
    );
    await setSecret(ns, 'ac-placement-bbbbb-secret');
    await waitUntil('consumer finalizer held again', async () =>
      (await finalizersOf(ns, 'ac-placement-bbbbb-secret')).includes(CONSUMER) ? true : undefined,
    );

    // Deletion lets go of the Secret placement held.
    await deletePlacement(ns);
    expect(await finalizersOf(ns, 'ac-placement-bbbbb-secret')).toEqual([]);
  });

  it('takes over a Secret an earlier stackops release held under the old finalizer name, and keeps one the Go operators held', async () => {
    const { client } = suite;
    const ns = suite.namespaces[0]!;
    await createAcSecret(ns, 'ac-placement-ddddd-secret', { AC_ID: 'id-ddddd', AC_SECRET: 'secret-ddddd' }, [
      EARLIER_CONSUMER,
    ]);
    await createAcSecret(ns, 'ac-placement-eeeee-secret', { AC_ID: 'id-eeeee', AC_SECRET: 'secret-eeeee' }, [
      CONSUMER,
    ]);
    await createPlacementAPI(client, ns, {
      auth: { applicationCredentialSecret: 'ac-placement-ddddd-secret' },
    });
    await waitUntil('held under the new name only', async () => {
      const f = await finalizersOf(ns, 'ac-placement-ddddd-secret');
      return f.length === 1 && f[0] === CONSUMER ? true : undefined;
    });
    await waitUntil('status names it', async () =>
      (await heldInStatus(ns)) === 'ac-placement-ddddd-secret' ? true : undefined,
    );
    // A Secret held under the Go operators' name (a switch) is the same hold: named next, it keeps it.
    await setSecret(ns, 'ac-placement-eeeee-secret');
    await waitUntil('status moved to the Go-held Secret', async () =>
      (await heldInStatus(ns)) === 'ac-placement-eeeee-secret' ? true : undefined,
    );
    expect(await finalizersOf(ns, 'ac-placement-eeeee-secret')).toEqual([CONSUMER]);
    expect(await finalizersOf(ns, 'ac-placement-ddddd-secret')).toEqual([]);
    await deletePlacement(ns);
    expect(await finalizersOf(ns, 'ac-placement-eeeee-secret')).toEqual([]);
  });
});
