import { describe, expect, it } from 'vitest';
import { ApiError } from '../client/errors.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { CrdSchemaWatch, crdSchemaDifference } from './crd-schema.js';

const crd = (schema: unknown, extra: Record<string, unknown> = {}): KubeObject =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.org' },
    spec: {
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, ...extra }],
    },
  }) as KubeObject;

const ours = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [{ rule: '!has(self.legacy)', message: 'legacy is not implemented' }],
      properties: {
        replicas: { type: 'integer', maximum: 32 },
        tls: { type: 'object', properties: { ca: { type: 'string' } } },
      },
    },
  },
};

describe('crdSchemaDifference', () => {
  it('the same schema, keys in another order and server-set fields beside it: no difference', () => {
    const reordered = JSON.parse(JSON.stringify(ours)) as typeof ours;
    const spec = reordered.properties.spec;
    reordered.properties.spec = {
      properties: spec.properties,
      type: 'object',
      'x-kubernetes-validations': spec['x-kubernetes-validations'],
    };
    const live = {
      ...crd(reordered, { additionalPrinterColumns: [] }),
      status: { storedVersions: ['v1'] },
    } as KubeObject;
    expect(crdSchemaDifference(crd(ours), live)).toBeUndefined();
  });

  it('an upstream-like schema: names the missing rules, our pruned fields and the fields we do not know', () => {
    const upstream = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            replicas: { type: 'integer' },
            legacy: { type: 'string' },
            other: { type: 'string' },
          },
        },
      },
    };
    expect(crdSchemaDifference(crd(ours), crd(upstream))).toBe(
      'v1: 1 of our 1 validation rules are missing; 2 of our fields are missing (pruned on write: spec.tls, spec.tls.ca); 2 fields we do not know are accepted (spec.legacy, spec.other)',
    );
  });

  it('only a bound differs; a version no longer served', () => {
    const looser = JSON.parse(JSON.stringify(ours)) as typeof ours;
    looser.properties.spec.properties.replicas.maximum = 64;
    expect(crdSchemaDifference(crd(ours), crd(looser))).toBe('v1: types, bounds or defaults differ');
    const open = {
      type: 'object',
      properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    };
    expect(crdSchemaDifference(crd(ours), crd(open))).toBe(
      'v1: 1 of our 1 validation rules are missing; 3 of our fields are not checked (spec.replicas, spec.tls, spec.tls.ca)',
    );
    expect(crdSchemaDifference(crd(ours), crd(ours, { served: false }))).toBe('v1: not served');
  });
});

describe('CrdSchemaWatch', () => {
  it('builds the CRDs it compares with when it starts, not when it is made', async () => {
    let built = 0;
    const forbidden = new ApiError({ code: 403, reason: 'Forbidden', message: 'cannot list' });
    const client = {
      list: async () => {
        throw forbidden;
      },
    } as unknown as KubeClient;
    const watch = new CrdSchemaWatch(
      client,
      () => {
        built += 1;
        return [crd(ours)];
      },
      { fix: 're-apply the CRDs' },
    );
    expect(built).toBe(0);
    expect(watch.names).toEqual([]);
    watch.start();
    watch.start();
    expect(built).toBe(1);
    expect(watch.names).toEqual(['widgets.example.org']);
    await watch.stop();
  });
});
