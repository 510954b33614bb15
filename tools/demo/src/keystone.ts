import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import {
  ensureKeystoneVenv,
  fernetKeysFromSecretData,
  type KeystoneServer,
  startKeystoneServer,
} from '@stackops/keystone-operator/testing';
import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { OPENSTACK_NAMESPACE } from './targets.js';

const execFileP = promisify(execFile);

/** The AdminPassword the demo's osp-secret carries (examples/00-openstack-prereqs.yaml). */
export const DEMO_ADMIN_PASSWORD = 'demo-admin-password';

/**
 * A real OpenStack Keystone (from PyPI, sqlite, on 127.0.0.1): the operators run outside the
 * cluster, so keystone-operator registers services and endpoints here (KEYSTONE_AUTH_URL_OVERRIDE)
 * instead of at the KeystoneAPI's in-cluster Service, which kwok's pods do not serve.
 */
export function startRealKeystone(): Promise<KeystoneServer> {
  return startKeystoneServer({ adminPassword: DEMO_ADMIN_PASSWORD, region: 'regionOne' });
}

/**
 * Once keystone-operator has generated the fernet keys of KeystoneAPI `keystone` (its `keystone`
 * Secret), the real Keystone signs and validates tokens with them, as the operator's pods would.
 */
export async function syncFernetKeys(
  client: KubeClient,
  keystone: KeystoneServer,
  signal: AbortSignal,
): Promise<boolean> {
  while (!signal.aborted) {
    const secret = await client
      .get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
        namespace: OPENSTACK_NAMESPACE,
        name: 'keystone',
      })
      .catch(() => undefined);
    const keys = fernetKeysFromSecretData(secret?.data);
    if (keys.length > 0) {
      await keystone.writeFernetKeys(keys);
      return true;
    }
    await sleep(500);
  }
  return false;
}

export interface CatalogueRow {
  service: string;
  type: string;
  interface: string;
  region: string;
  url: string;
}

/** `openstack endpoint list`, read from the real Keystone. */
export async function readCatalogue(keystone: KeystoneServer): Promise<CatalogueRow[]> {
  const admin = keystone.adminClient();
  const services = new Map((await admin.services.list()).map((s) => [s.id, s]));
  return (await admin.endpoints.list())
    .map((e) => {
      const s = services.get(e.service_id);
      return {
        service: s?.name ?? e.service_id,
        type: s?.type ?? '',
        interface: e.interface,
        region: e.region_id ?? e.region ?? '',
        url: e.url,
      };
    })
    .sort((a, b) => `${a.service}/${a.interface}`.localeCompare(`${b.service}/${b.interface}`));
}

interface JobEnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}

interface JobShape extends KubeObject {
  spec: { template: { spec: { containers: { env?: JobEnvVar[] }[] } } };
}

/**
 * What the `keystone-bootstrap` Job does in a real cluster (kwok only simulates its pod): runs
 * `keystone-manage bootstrap` with the Job's own OS_BOOTSTRAP_* env (admin user, project, region and
 * keystone's internal/public URLs from the KeystoneAPI), here against the real Keystone, so the
 * catalogue holds keystone's identity endpoints as upstream's does.
 */
export async function runBootstrapJob(
  client: KubeClient,
  keystone: KeystoneServer,
  signal: AbortSignal,
): Promise<boolean> {
  while (!signal.aborted) {
    const job = await client
      .get<JobShape>(Kinds.Job, { namespace: OPENSTACK_NAMESPACE, name: 'keystone-bootstrap' })
      .catch(() => undefined);
    const vars = job?.spec.template.spec.containers[0]?.env;
    if (vars) {
      const env: Record<string, string> = {};
      for (const v of vars) {
        const ref = v.valueFrom?.secretKeyRef;
        if (v.value !== undefined) env[v.name] = v.value;
        else if (ref) env[v.name] = await secretValue(client, ref.name, ref.key);
      }
      const venv = await ensureKeystoneVenv();
      await execFileP(
        venv.keystoneManage,
        ['--config-file', join(keystone.dir, 'keystone.conf'), 'bootstrap'],
        {
          env: { ...process.env, ...env },
        },
      );
      return true;
    }
    await sleep(500);
  }
  return false;
}

async function secretValue(client: KubeClient, name: string, key: string): Promise<string> {
  const secret = await client.get<KubeObject & { data?: Record<string, string> }>(Kinds.Secret, {
    namespace: OPENSTACK_NAMESPACE,
    name,
  });
  const b64 = secret?.data?.[key];
  if (b64 === undefined) throw new Error(`Secret ${OPENSTACK_NAMESPACE}/${name} has no key ${key}`);
  return Buffer.from(b64, 'base64').toString('utf8');
}
