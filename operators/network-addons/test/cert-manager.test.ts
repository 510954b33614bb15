import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { installCrds, waitUntil } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { looseCrd } from '../src/resources/builders.js';
import { CERT_MANAGER_KINDS, CertificateKind, IssuerKind } from '../src/resources/kinds.js';
import { getConfig, setSpec, useNetworkAddonsSuite, waitAvailable } from './support.js';

const WEBHOOK = 'kubevirt-ipam-controller-mutating-webhook-configuration';
const CERTIFICATE = 'kubevirt-ipam-controller-serving-cert';
const INJECT_CA = 'cert-manager.io/inject-ca-from';

/** cert-manager's two CRDs as its chart would install them (any schema will do here), unlabelled. */
const certManagerCrds = (): KubeObject[] =>
  CERT_MANAGER_KINDS.map((k) => {
    const crd = looseCrd({
      group: k.group,
      kind: k.kind,
      plural: k.plural,
      singular: k.kind.toLowerCase(),
      scope: 'Namespaced',
      versions: [{ name: k.version, storage: true, status: true }],
    });
    return { ...crd, metadata: { name: crd.metadata.name } };
  });

describe('cert-manager installed and removed while the operator runs (local control plane)', () => {
  const nao = useNetworkAddonsSuite('nao-cert-manager', {
    cleanup: () => removeCrds(),
  });

  async function removeCrds(): Promise<void> {
    for (const crd of certManagerCrds())
      await nao.client.delete(Kinds.CustomResourceDefinition, { name: crd.metadata.name ?? '' });
    for (const crd of certManagerCrds())
      await waitUntil(
        `CRD ${crd.metadata.name} gone`,
        async () =>
          !(await nao.client.get(Kinds.CustomResourceDefinition, { name: crd.metadata.name ?? '' })),
      );
  }

  const injectCa = async (): Promise<string | undefined> =>
    (await nao.client.get<KubeObject>(Kinds.MutatingWebhookConfiguration, { name: WEBHOOK }))?.metadata
      .annotations?.[INJECT_CA];

  it('renders the ipam controller with its Certificate and Issuer once the CRDs are served, without a restart, and without them once they are gone', async () => {
    await removeCrds();
    const operator = nao.op;
    await setSpec(nao.client, { kubevirtIpamController: {} });
    await waitAvailable(nao.client);
    expect(await injectCa()).toBeUndefined();
    expect(operator.controller.optionalKinds.map((o) => `${o.kind.kind} ${o.watching}`)).toEqual([
      'Certificate false',
      'Issuer false',
    ]);

    await installCrds(nao.client, certManagerCrds());
    await waitUntil('the webhook annotated for cert-manager', async () => (await injectCa()) !== undefined, {
      timeoutMs: 30_000,
    });
    expect(await injectCa()).toBe(`${nao.ns}/${CERTIFICATE}`);
    const cr = await getConfig(nao.client);
    const certificate = await nao.client.get<KubeObject>(CertificateKind, {
      name: CERTIFICATE,
      namespace: nao.ns,
    });
    expect(certificate?.metadata.ownerReferences?.map((r) => r.uid)).toEqual([cr?.metadata.uid]);
    const issuers = await nao.client.list(IssuerKind, { namespace: nao.ns });
    expect(issuers.items.map((i) => i.metadata.name)).toEqual(['kubevirt-ipam-controller-selfsigned-issuer']);
    expect(operator.controller.optionalKinds.map((o) => `${o.kind.kind} ${o.watching}`)).toEqual([
      'Certificate true',
      'Issuer true',
    ]);
    // The same operator all along: it noticed the CRDs through its watches of them.
    expect(nao.op).toBe(operator);
    await waitAvailable(nao.client);

    await removeCrds();
    await waitUntil('the webhook without cert-manager', async () => (await injectCa()) === undefined, {
      timeoutMs: 30_000,
    });
    await waitAvailable(nao.client);
  });
});
