import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { buildCrd, freeFormObjects, toOpenApiSchema, UNKNOWN_FIELD_RULE } from './crd.js';

describe('toOpenApiSchema', () => {
  it('turns a union of string literals into an enum, keeping description and default', () => {
    const s = Type.Union([Type.Literal('Always'), Type.Literal('IfNotPresent')], {
      default: 'IfNotPresent',
      description: 'pull',
    });
    expect(toOpenApiSchema(s)).toEqual({
      type: 'string',
      enum: ['Always', 'IfNotPresent'],
      default: 'IfNotPresent',
      description: 'pull',
    });
  });

  it('keeps required, ranges, CEL rules and drops TypeBox-only keys', () => {
    const s = Type.Object(
      { replicas: Type.Integer({ minimum: 0, maximum: 32, default: 1 }), name: Type.Optional(Type.String()) },
      {
        $id: 'X',
        'x-kubernetes-validations': [{ rule: 'self.replicas >= 0', message: 'replicas must be >= 0' }],
      },
    );
    const out = toOpenApiSchema(s);
    expect(out).toEqual({
      type: 'object',
      required: ['replicas'],
      properties: {
        replicas: { type: 'integer', minimum: 0, maximum: 32, default: 1 },
        name: { type: 'string' },
      },
      'x-kubernetes-validations': [{ rule: 'self.replicas >= 0', message: 'replicas must be >= 0' }],
    });
    expect(JSON.stringify(out)).not.toContain('$id');
  });

  it('maps Type.Record to additionalProperties and closes empty objects with a rule naming unknown keys', () => {
    expect(toOpenApiSchema(Type.Record(Type.String(), Type.String()))).toEqual({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    expect(toOpenApiSchema(Type.Object({}))).toEqual({
      type: 'object',
      additionalProperties: {
        'x-kubernetes-int-or-string': true,
        'x-kubernetes-validations': [UNKNOWN_FIELD_RULE],
      },
      maxProperties: 8,
    });
  });

  it('leaves an object free-form only when its schema says so, and finds every such object', () => {
    const free = Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true });
    const schema = toOpenApiSchema(
      Type.Object({
        toggle: Type.Object({}),
        config: free,
        list: Type.Array(free),
        map: Type.Record(Type.String(), free),
        nested: Type.Object({ inner: free }),
      }),
    );
    expect(freeFormObjects(schema)).toEqual(['config', 'list[]', 'map.*', 'nested.inner']);
  });

  it('refuses a union a structural schema cannot express', () => {
    expect(() => toOpenApiSchema(Type.Union([Type.String(), Type.Number()]))).toThrow(/union of non-literal/);
  });

  it('allows int-or-string unions when marked', () => {
    const s = Type.Union([Type.Integer(), Type.String()], { 'x-kubernetes-int-or-string': true });
    expect(toOpenApiSchema(s)).toEqual({ 'x-kubernetes-int-or-string': true });
  });
});

describe('buildCrd', () => {
  it('builds a v1 CRD with names, printer columns and the status subresource', () => {
    const crd = buildCrd({
      group: 'example.org',
      kind: 'Widget',
      plural: 'widgets',
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: Type.Object({ spec: Type.Object({ size: Type.Integer() }) }),
          printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        },
      ],
    });
    expect(crd).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.org' },
      spec: {
        group: 'example.org',
        names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            subresources: { status: {} },
            additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', required: ['size'] } },
              },
            },
          },
        ],
      },
    });
  });
});

describe('objectMetaSchema', () => {
  it('only names name and generateName, as the API server requires of a CRD', async () => {
    const { objectMetaSchema } = await import('./common.js');
    expect(toOpenApiSchema(objectMetaSchema)).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, generateName: { type: 'string' } },
    });
  });
});
