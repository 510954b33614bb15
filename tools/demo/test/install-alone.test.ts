import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { cacheLayout } from '@stackops/kube-env';
import { createKubeClient, type KindRef, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { waitFor, waitForDeletion } from '@stackops/lib-common/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorRunSpec } from '../src/chart-run.js';
import { examplesDir } from '../src/examples.js';
import { run } from '../src/exec.js';
import { type RunningOperator, startOperator } from '../src/operators.js';
import {
  KeystoneAPIKind,
  NetworkAddonsConfigKind,
  OPENSTACK_NAMESPACE,
  PlacementAPIKind,
  SIP_NAMESPACE,
  SIPClusterKind,
} from '../src/targets.js';

/**
 * Each operator chart installed by itself (no umbrella) into a fresh namespace, its operator run as
 * the chart's ServiceAccount with the chart Deployment's args and env, its sample converged, then
 * `helm uninstall`: nothing of the release may remain but the CRDs (Helm never deletes those).
 */
const repoRoot = resolve(import.meta.dirname, '../../..');
const kubeconfig = process.env['KUBECONFIG'] ?? '';

const kc = new KubeConfig();
let client: ReturnType<typeof createKubeClient>;
let helm: string;
let kubectl: string;

const crdKind: KindRef = Kinds.CustomResourceDefinition;
const cond = (obj: KubeObject | undefined, type: string) =>
  (
    (obj?.['status'] as { conditions?: { type: string; status: string; message?: string }[] })?.conditions ??
    []
  ).find((c) => c.type === type);

async function apply(file: string, namespace?: string): Promise<void> {
  await run(kubectl, [
    '--kubeconfig',
    kubeconfig,
    'apply',
    '--server-side',
    ...(namespace ? ['-n', namespace] : []),
    '-f',
    join(examplesDir, file),
  ]);
}

/** Every object the release put in the cluster, found by Helm's instance label. */
async function releaseObjects(release: string, namespace: string): Promise<string[]> {
  const selector = `app.kubernetes.io/instance=${release}`;
  const found: string[] = [];
  for (const kind of [
    Kinds.Deployment,
    Kinds.ServiceAccount,
    Kinds.Role,
    Kinds.RoleBinding,
    Kinds.ConfigMap,
    Kinds.Secret,
  ]) {
    for (const o of (await client.list(kind, { namespace, labelSelector: selector })).items)
      found.push(`${kind.kind} ${o.metadata.name}`);
  }
  for (const kind of [Kinds.ClusterRole, Kinds.ClusterRoleBinding]) {
    for (const o of (await client.list(kind, { labelSelector: selector })).items)
      found.push(`${kind.kind} ${o.metadata.name}`);
  }
  return found;
}

interface AloneCase {
  dir: 'keystone' | 'placement' | 'network-addons' | 'sip';
  helmSet?: string[];
  /** Example files and the namespace their namespace-less objects go to. */
  samples: { file: string; namespace?: string }[];
  crds: string[];
  /** Waits for the sample to converge and returns the CRs to delete before uninstalling. */
  converge: () => Promise<{ kind: KindRef; namespace?: string; name: string }[]>;
}

const cases: AloneCase[] = [
  {
    dir: 'keystone',
    samples: [
      { file: '00-openstack-prereqs.yaml', namespace: OPENSTACK_NAMESPACE },
      { file: '10-keystoneapi.yaml', namespace: OPENSTACK_NAMESPACE },
    ],
    crds: [
      'keystoneapis.keystone.openstack.org',
      'keystoneservices.keystone.openstack.org',
      'keystoneendpoints.keystone.openstack.org',
    ],
    converge: async () => {
      const ref = { namespace: OPENSTACK_NAMESPACE, name: 'keystone' };
      await waitFor(client, KeystoneAPIKind, ref, (o) => cond(o, 'Ready')?.status === 'True', {
        timeoutMs: 120_000,
      });
      return [{ kind: KeystoneAPIKind, ...ref }];
    },
  },
  {
    // Placement needs a KeystoneAPI to converge, and keystone is not installed here: alone, its
    // operator must still reconcile under the chart's RBAC and say what it waits for.
    dir: 'placement',
    samples: [
      { file: '00-openstack-prereqs.yaml', namespace: OPENSTACK_NAMESPACE },
      { file: '20-placementapi.yaml', namespace: OPENSTACK_NAMESPACE },
    ],
    crds: ['placementapis.placement.openstack.org'],
    converge: async () => {
      const ref = { namespace: OPENSTACK_NAMESPACE, name: 'placement' };
      const obj = await waitFor(client, PlacementAPIKind, ref, (o) => cond(o, 'Ready')?.status === 'False', {
        timeoutMs: 60_000,
      });
      expect(JSON.stringify(obj?.['status'])).toMatch(/[Kk]eystone/);
      return [{ kind: PlacementAPIKind, ...ref }];
    },
  },
  {
    dir: 'network-addons',
    samples: [{ file: '30-networkaddonsconfig.yaml' }],
    crds: ['networkaddonsconfigs.networkaddonsoperator.network.kubevirt.io'],
    converge: async () => {
      const ref = { name: 'cluster' };
      await waitFor(client, NetworkAddonsConfigKind, ref, (o) => cond(o, 'Available')?.status === 'True', {
        timeoutMs: 120_000,
      });
      return [{ kind: NetworkAddonsConfigKind, ...ref }];
    },
  },
  {
    dir: 'sip',
    helmSet: ['installBareMetalHostCRD=true'],
    samples: [{ file: '40-sipcluster.yaml' }],
    crds: ['sipclusters.airship.airshipit.org'],
    converge: async () => {
      const ref = { namespace: SIP_NAMESPACE, name: 'tenant-a' };
      await waitFor(client, SIPClusterKind, ref, (o) => cond(o, 'Ready')?.status === 'True', {
        timeoutMs: 120_000,
      });
      return [{ kind: SIPClusterKind, ...ref }];
    },
  },
];

beforeAll(async () => {
  kc.loadFromFile(kubeconfig);
  client = createKubeClient(kc, { fieldManager: 'stackops-install-alone-test' });
  const bin = cacheLayout().bin;
  helm = join(bin, 'helm');
  kubectl = join(bin, 'kubectl');
});

afterAll(async () => {
  for (const ns of [OPENSTACK_NAMESPACE, SIP_NAMESPACE])
    await client.delete(Kinds.Namespace, { name: ns }).catch(() => false);
});

describe('each operator chart installed alone', () => {
  for (const c of cases) {
    it(`${c.dir}-operator: installs into a fresh namespace, converges its sample, uninstalls without leftovers`, async () => {
      const release = `${c.dir}-alone`;
      const namespace = `alone-${c.dir}`;
      const chart = join(repoRoot, 'charts', `${c.dir}-operator`);
      const sets = (c.helmSet ?? []).flatMap((s) => ['--set', s]);
      await run(helm, [
        'install',
        release,
        chart,
        '-n',
        namespace,
        '--create-namespace',
        '--kubeconfig',
        kubeconfig,
        '--wait',
        '--timeout',
        '3m',
        ...sets,
      ]);
      expect(await releaseObjects(release, namespace)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^Deployment /)]),
      );

      const spec = await operatorRunSpec(client, namespace, `app.kubernetes.io/instance=${release}`);
      const logDir = mkdtempSync(join(tmpdir(), `${release}-`));
      let operator: RunningOperator | undefined;
      try {
        operator = await startOperator({ dir: c.dir, ...spec }, kubeconfig, logDir);
        for (const s of c.samples) await apply(s.file, s.namespace);
        const crs = await c.converge();
        // Deleted while the operator runs, so its finalizers are released.
        for (const cr of crs) {
          await client.delete(cr.kind, cr);
          await waitForDeletion(client, cr.kind, cr, { timeoutMs: 60_000 });
        }
      } finally {
        await operator?.stop();
      }
      // Kept when the test fails: the errors above name the operator's log file in it.
      rmSync(logDir, { recursive: true, force: true });

      await run(helm, ['uninstall', release, '-n', namespace, '--kubeconfig', kubeconfig, '--wait']);
      expect(await releaseObjects(release, namespace)).toEqual([]);
      for (const crd of c.crds)
        expect(await client.get(crdKind, { name: crd }), `${crd} stays`).toBeDefined();
    });
  }
});
