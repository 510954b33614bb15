import { type ControlPlane, startControlPlane } from '@stackops/kube-env';
import {
  createKubeClient,
  type KindRef,
  type KubeClient,
  type KubeObject,
} from '@stackops/lib-common/client';
import { type DefaultingWebhook, startDefaultingWebhook } from '@stackops/lib-common/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeystoneKinds } from '../src/api/group.js';
import type { KeystoneAPI } from '../src/api/keystone-api.js';
import { defaultKeystoneApi, KEYSTONE_API_WEBHOOK_PATH } from '../src/webhook.js';
import { installCrds, newNamespace, TEST_DEFAULTS } from './support/harness.js';

const MutatingWebhookConfigurationKind: KindRef = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'MutatingWebhookConfiguration',
  plural: 'mutatingwebhookconfigurations',
  namespaced: false,
};

/**
 * The KeystoneAPI defaulting webhook behind a real API server, as an operator running outside
 * the cluster serves it (a URL on 127.0.0.1, its self-signed certificate as caBundle), limited to
 * this test's namespace. upstream's sample writes `cpu: "1.0"` and its webhook stores `"1"`.
 * The shared test cluster calls no webhooks (kube-env's default): this file starts its own
 * control plane with `admissionWebhooks`, so no other test meets a webhook.
 */
describe('KeystoneAPI defaulting webhook (real API server)', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let ns: string;
  let webhook: DefaultingWebhook | undefined;
  const config = `stackops-test-keystoneapi-defaulting-${process.pid}`;

  beforeAll(async () => {
    cp = await startControlPlane({
      name: `ks-webhook-${process.pid}`,
      fresh: true,
      ephemeral: true,
      nodes: 1,
      admissionWebhooks: true,
    });
    client = createKubeClient(cp.kubeConfig, { fieldManager: 'keystone-webhook-test' });
    await installCrds(client);
    ns = await newNamespace(client, 'ks-webhook');
    webhook = await startDefaultingWebhook({
      bindAddress: '127.0.0.1:0',
      defaulters: { [KEYSTONE_API_WEBHOOK_PATH]: defaultKeystoneApi(TEST_DEFAULTS) },
    });
    if (!webhook) throw new Error('webhook not started');
    await client.create(MutatingWebhookConfigurationKind, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: config },
      webhooks: [
        {
          name: 'mkeystoneapi-v1beta1.kb.io',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Ignore',
          timeoutSeconds: 5,
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          clientConfig: {
            url: `https://127.0.0.1:${webhook.address.port}${KEYSTONE_API_WEBHOOK_PATH}`,
            caBundle: Buffer.from(webhook.certificate.cert).toString('base64'),
          },
          rules: [
            {
              apiGroups: ['keystone.openstack.org'],
              apiVersions: ['v1beta1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['keystoneapis'],
            },
          ],
        },
      ],
    } as KubeObject);
  });
  afterAll(async () => {
    await webhook?.stop();
    await cp?.stop({ purge: true });
  });

  const sample = (name: string): KeystoneAPI =>
    ({
      apiVersion: 'keystone.openstack.org/v1beta1',
      kind: 'KeystoneAPI',
      metadata: { name, namespace: ns },
      spec: {
        secret: 'osp-secret',
        resources: { requests: { cpu: '1.0', memory: '500Mi' }, limits: { memory: '1024Mi' } },
      },
    }) as KeystoneAPI;

  it('stores canonical quantities and the default containerImage, as upstream', async () => {
    // The API server picks a new webhook configuration up within moments: retry until it calls it.
    let stored: KeystoneAPI | undefined;
    const deadline = Date.now() + 30_000;
    for (let i = 0; Date.now() < deadline; i++) {
      stored = await client.create<KeystoneAPI>(KeystoneKinds.KeystoneAPI, sample(`keystone-${i}`));
      if (stored.spec.containerImage) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(stored?.spec.resources).toEqual({
      requests: { cpu: '1', memory: '500Mi' },
      limits: { memory: '1Gi' },
    });
    expect(stored?.spec.containerImage).toBe(TEST_DEFAULTS.apiImage);
    // An update goes through it too.
    const name = stored?.metadata.name ?? '';
    const patched = await client.patch<KeystoneAPI>(
      KeystoneKinds.KeystoneAPI,
      { name, namespace: ns },
      { spec: { resources: { requests: { cpu: '500m', memory: '0.5Gi' } } } },
      'merge',
    );
    expect(patched.spec.resources?.requests).toEqual({ cpu: '500m', memory: '512Mi' });
  });

  it('failurePolicy Ignore: with the operator down the object is stored as written', async () => {
    await webhook?.stop();
    const stored = await client.create<KeystoneAPI>(KeystoneKinds.KeystoneAPI, sample('written'));
    expect(stored.spec.resources?.requests).toEqual({ cpu: '1.0', memory: '500Mi' });
    expect(stored.spec.containerImage ?? '').toBe('');
  });
});
