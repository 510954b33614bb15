import { type ApiError, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { describe, expect, it } from 'vitest';
import { NetworkAddonsConfigKind } from '../src/api/kinds.js';
import type { NetworkAddonsConfigSpec } from '../src/api/network-addons-config.js';
import {
  condition,
  deleteConfig,
  getConfig,
  setSpec,
  useNetworkAddonsSuite,
  waitAvailable,
  waitForConditions,
} from './support.js';

const RANGE = { rangeStart: '02:10:10:00:00:00', rangeEnd: '02:10:10:00:FF:FF' };

describe('invalid configurations', () => {
  const nao = useNetworkAddonsSuite('nao-invalid');

  /** resourceVersion of every object the operator deployed in the namespace, and of its workloads' specs. */
  const snapshot = async () => {
    const out: Record<string, string> = {};
    for (const kind of [
      Kinds.ConfigMap,
      Kinds.DaemonSet,
      Kinds.Deployment,
      Kinds.ServiceAccount,
      Kinds.Service,
    ]) {
      for (const o of (await nao.client.list(kind, { namespace: nao.ns })).items) {
        // Workload status moves with the pods; their generation moves only with their spec.
        out[`${kind.kind}/${o.metadata.name}`] =
          kind === Kinds.DaemonSet || kind === Kinds.Deployment
            ? `generation ${o.metadata.generation}`
            : (o.metadata.resourceVersion ?? '');
      }
    }
    return out;
  };

  const events = async (reason: string) => {
    const cr = await getConfig(nao.client);
    const { items } = await nao.client.list<KubeObject & { reason: string; message: string; type: string }>(
      Kinds.Event,
      {
        namespace: 'default',
      },
    );
    return items.filter(
      (e) => (e['involvedObject'] as { uid?: string }).uid === cr?.metadata.uid && e.reason === reason,
    );
  };

  it.each<[string, NetworkAddonsConfigSpec, RegExp]>([
    [
      'a MAC address that is not one',
      { kubeMacPool: { rangeStart: 'this:aint:right', rangeEnd: '02:00:00:00:00:01' } },
      /spec.kubeMacPool.rangeStart/,
    ],
    [
      'an unknown image pull policy',
      { imagePullPolicy: 'BAD' as never },
      /spec.imagePullPolicy: Unsupported value: "BAD"/,
    ],
    [
      'a duration that is not one',
      {
        selfSignConfiguration: {
          caRotateInterval: '2 days',
          caOverlapInterval: '1h',
          certRotateInterval: '1h',
          certOverlapInterval: '1h',
        },
      },
      /spec.selfSignConfiguration.caRotateInterval/,
    ],
    [
      'an incomplete selfSignConfiguration',
      { selfSignConfiguration: { caRotateInterval: '2h' } as never },
      /spec.selfSignConfiguration.caOverlapInterval: Required value/,
    ],
    [
      'an unknown CRI socket',
      { multus: {}, multusDynamicNetworks: { hostCRISocketPath: '/run/x.sock' as never } },
      /hostCRISocketPath: Unsupported value/,
    ],
    [
      'a field in a component that takes none (not stored and ignored)',
      { linuxBridge: { bridgeMarkerHealthPort: 9090 } as never },
      /spec.linuxBridge\[bridgeMarkerHealthPort\]: Invalid value: "": unknown field: this object takes no fields/,
    ],
    [
      'fields in a preset TLS profile, every one named',
      { tlsSecurityProfile: { type: 'Old', old: { minTLSVersion: 'VersionTLS13', extra: 1 } as never } },
      /^(?=.*spec.tlsSecurityProfile.old\[extra\]: Invalid value: "": unknown field)(?=.*spec.tlsSecurityProfile.old\[minTLSVersion\]: Invalid value: "": unknown field)/s,
    ],
    [
      'a list or object where a component takes no fields, by its name',
      { ovs: { bridges: ['br1'] } as never },
      /spec.ovs.bridges: Invalid value: "array"/,
    ],
  ])('the API server itself refuses %s', async (_name, spec, message) => {
    const err = await nao.client
      .create(NetworkAddonsConfigKind, { metadata: { name: 'cluster' }, spec })
      .then(
        () => undefined,
        (e: unknown) => e as ApiError,
      );
    expect(err?.code).toBe(422);
    expect(err?.statusMessage).toMatch(message);
  });

  it('a MAC range whose end is below its start is Degraded with the reason; nothing deployed is touched; fixing recovers', async () => {
    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE });
    await waitAvailable(nao.client);
    const before = await snapshot();
    const applies = nao.op.manager.client.requests.count({ verb: ['apply', 'delete'] });

    await setSpec(nao.client, {
      linuxBridge: {},
      kubeMacPool: { rangeStart: '02:10:10:00:FF:FF', rangeEnd: '02:10:10:00:00:00' },
    });
    const failed = await waitForConditions(nao.client, {
      Degraded: { status: 'True', reason: 'FailedToValidate' },
      Available: { status: 'False', reason: 'Failing' },
      Progressing: { status: 'False', reason: 'InvalidConfiguration' },
    });
    expect(condition(failed, 'Degraded')?.message).toBe(
      'failed to validate NetworkConfig.Spec: invalid configuration:\nfailed to set mac address range: invalid range. Range end is lesser than or equal to its start. start: 02:10:10:00:ff:ff end: 02:10:10:00:00:00',
    );
    expect(condition(failed, 'Available')?.message).toBe('Unable to apply desired configuration');
    expect(condition(failed, 'Progressing')?.message).toBe(
      'Human interaction is needed, please fix the desired configuration',
    );
    expect(failed.status?.observedVersion).toBe('0.1.0');
    expect(failed.status?.containers?.length).toBeGreaterThan(0);
    expect(await snapshot()).toEqual(before);
    expect(nao.op.manager.client.requests.count({ verb: ['apply', 'delete'] })).toBe(applies);
    const warnings = await events('Failed: FailedToValidate');
    expect(warnings.map((e) => [e.type, e.message.split('\n')[0]])).toEqual([
      ['Warning', 'Operator failed: failed to validate NetworkConfig.Spec: invalid configuration:'],
    ]);

    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE });
    const recovered = await waitAvailable(nao.client);
    expect(condition(recovered, 'Degraded')?.reason).toBeUndefined();
    expect((await events('Available')).length).toBeGreaterThan(0);
  });

  it('only one end of the range is Degraded with upstream’s message', async () => {
    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: { rangeStart: '02:10:10:00:00:00' } });
    const failed = await waitForConditions(nao.client, {
      Degraded: { status: 'True', reason: 'FailedToValidate' },
    });
    expect(condition(failed, 'Degraded')?.message).toBe(
      'failed to validate NetworkConfig.Spec: invalid configuration:\nboth or none of the KubeMacPool ranges needs to be configured',
    );
    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE });
    await waitAvailable(nao.client);
  });

  it('every problem of the spec is reported at once', async () => {
    await setSpec(nao.client, {
      kubeMacPool: { rangeStart: '03:00:00:00:00:00', rangeEnd: '04:00:00:00:00:00' },
      multusDynamicNetworks: {},
      selfSignConfiguration: {
        caRotateInterval: '1h',
        caOverlapInterval: '2h',
        certRotateInterval: '1h',
        certOverlapInterval: '0s',
      },
    });
    const failed = await waitForConditions(nao.client, {
      Degraded: { status: 'True', reason: 'FailedToValidate' },
    });
    expect(condition(failed, 'Degraded')?.message?.split('\n')).toEqual([
      'failed to validate NetworkConfig.Spec: invalid configuration:',
      'failed to set RangeStart: invalid mac address. Multicast addressing is not supported. Unicast addressing must be used. The first octet is 0X3',
      'failed to validate selfSignConfiguration: certOverlapInterval duration has to be > 0',
      'the `multus` configuration is required',
    ]);
    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE });
    await waitAvailable(nao.client);
  });

  it('changing imagePullPolicy after deployment is refused; the deployed pull policy stays; reverting recovers', async () => {
    const before = await snapshot();
    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE, imagePullPolicy: 'Always' });
    const failed = await waitForConditions(nao.client, {
      Degraded: { status: 'True', reason: 'FailedToGetPreviousConfigSpec' },
      Available: 'False',
    });
    expect(condition(failed, 'Degraded')?.message).toBe(
      'not applying unsafe change: invalid configuration:\ncannot modify ImagePullPolicy configuration once components were deployed',
    );
    expect(await snapshot()).toEqual(before);
    const ds = await nao.client.get<
      KubeObject & { spec: { template: { spec: { containers: { imagePullPolicy: string }[] } } } }
    >(Kinds.DaemonSet, { namespace: nao.ns, name: 'bridge-marker' });
    expect(ds?.spec.template.spec.containers[0]?.imagePullPolicy).toBe('IfNotPresent');

    // Leaving the field out keeps the deployed policy.
    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE });
    await waitAvailable(nao.client);
    await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE, imagePullPolicy: 'IfNotPresent' });
    await waitAvailable(nao.client);
  });

  it('an object the API server refuses is Degraded FailedToApply naming the object and component, and retried', async () => {
    const missing = `nao-missing-${nao.ns.slice(-6)}`;
    await nao.restart({ operandNamespace: missing });
    try {
      await setSpec(nao.client, { linuxBridge: {}, kubeMacPool: RANGE, ovs: {} });
      const failed = await waitForConditions(nao.client, {
        Degraded: { status: 'True', reason: 'FailedToApply' },
      });
      // Objects are written in waves (ADR 0031): the first refusal, in rendered order, of the first
      // wave refused is named — the linux-bridge component's ServiceAccount, before any workload.
      expect(condition(failed, 'Degraded')?.message).toMatch(
        new RegExp(
          `^could not apply \\(v1, Kind=ServiceAccount\\) ${missing}/bridge-marker \\(linuxBridge\\): namespaces "${missing}" not found$`,
        ),
      );
      // No workload was written while what its pods need was refused.
      expect(
        await nao.client.get(Kinds.DaemonSet, { namespace: missing, name: 'kube-cni-linux-bridge-plugin' }),
      ).toBeUndefined();
      // Retried with backoff: it recovers by itself once the namespace exists.
      await nao.client.create(Kinds.Namespace, { metadata: { name: missing } });
      await waitAvailable(nao.client, 90_000);
    } finally {
      await nao.stop();
      await deleteConfig(nao.client);
      await nao.client.delete(Kinds.Namespace, { name: missing });
      await nao.restart();
    }
  });
});
