import { ApiException, ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients, createTestNamespace, kubeConfig, waitFor } from './helpers.js';

const kc = kubeConfig();
const { core } = clients(kc);
const extensions = kc.makeApiClient(ApiextensionsV1Api);
const objects = kc.makeApiClient(CustomObjectsApi);

// A unique group per run, so a reused cluster never holds a stale version of this CRD.
const group = `t${Date.now().toString(36)}.kube-env.stackops.dev`;
const plural = 'widgets';
const crdName = `${plural}.${group}`;
const ref = { group, version: 'v1', plural };
let namespace = '';

beforeAll(async () => {
  namespace = await createTestNamespace(core, 'kube-env-crd');
  await extensions.createCustomResourceDefinition({
    body: {
      metadata: { name: crdName },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    required: ['size'],
                    properties: {
                      size: { type: 'integer', minimum: 1 },
                      min: { type: 'integer', _default: 0 },
                    },
                    x_kubernetes_validations: [
                      { rule: 'self.min <= self.size', message: 'min must not exceed size' },
                    ],
                  },
                  status: { type: 'object', properties: { phase: { type: 'string' } } },
                },
              },
            },
          },
        ],
      },
    },
  });
});

afterAll(async () => {
  await core.deleteNamespace({ name: namespace });
  await extensions.deleteCustomResourceDefinition({ name: crdName });
});

/** The API server's rejection message for a create, or undefined when it was accepted. */
async function createError(
  name: string,
  spec: Record<string, unknown>,
): Promise<{ code: number; message: string } | undefined> {
  try {
    await objects.createNamespacedCustomObject({
      ...ref,
      namespace,
      body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec },
    });
    return undefined;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
    return { code: error.code, message: String(body.message) };
  }
}

describe('custom resources', () => {
  it('the CRD becomes Established', async () => {
    await waitFor('CRD Established', async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: crdName });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
    });
  });

  it('accepts a valid custom resource and applies schema defaults', async () => {
    expect(await createError('good', { size: 3 })).toBeUndefined();
    const widget = await objects.getNamespacedCustomObject({ ...ref, namespace, name: 'good' });
    expect(widget.spec).toEqual({ size: 3, min: 0 });
  });

  it("rejects a schema violation with the API server's message", async () => {
    const rejected = await createError('too-small', { size: 0 });
    expect(rejected?.code).toBe(422);
    expect(rejected?.message).toContain(
      'spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1',
    );
    const missing = await createError('no-size', { min: 1 });
    expect(missing?.message).toContain('spec.size: Required value');
  });

  it("rejects a CEL rule violation with the rule's message", async () => {
    const rejected = await createError('inverted', { size: 2, min: 5 });
    expect(rejected?.code).toBe(422);
    expect(rejected?.message).toContain('min must not exceed size');
  });

  it('the status subresource is written only through /status', async () => {
    await objects.createNamespacedCustomObject({
      ...ref,
      namespace,
      body: {
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'stat' },
        spec: { size: 1 },
        status: { phase: 'ignored' },
      },
    });
    const created = await objects.getNamespacedCustomObject({ ...ref, namespace, name: 'stat' });
    expect(created.status).toBeUndefined();
    const generation = created.metadata.generation;

    await objects.replaceNamespacedCustomObjectStatus({
      ...ref,
      namespace,
      name: 'stat',
      body: { ...created, status: { phase: 'Ready' } },
    });
    const updated = await objects.getNamespacedCustomObject({ ...ref, namespace, name: 'stat' });
    expect(updated.status).toEqual({ phase: 'Ready' });
    expect(updated.metadata.generation).toBe(generation);

    // A write to the main resource cannot change status.
    await objects.replaceNamespacedCustomObject({
      ...ref,
      namespace,
      name: 'stat',
      body: { ...updated, spec: { size: 2 }, status: { phase: 'Overwritten' } },
    });
    const after = await objects.getNamespacedCustomObject({ ...ref, namespace, name: 'stat' });
    expect(after.status).toEqual({ phase: 'Ready' });
    expect(after.metadata.generation).toBe(generation + 1);
  });
});
