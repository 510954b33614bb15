import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { boundInputSchema, DEFAULT_INPUT_BOUNDS, unboundedFields } from './bounds.js';
import { buildCrd, toOpenApiSchema } from './crd.js';

const spec = Type.Object({
  name: Type.String(),
  image: Type.String({ maxLength: 512 }),
  mode: Type.Union([Type.Literal('a'), Type.Literal('b')]),
  replicas: Type.Integer({ minimum: 0, maximum: 32 }),
  keys: Type.Integer({ minimum: 3 }),
  hosts: Type.Array(Type.Object({ ip: Type.String() })),
  labels: Type.Record(Type.String(), Type.String()),
});

describe('input bounds', () => {
  it('finds every string, number, list and map without a bound, nested ones included', () => {
    expect(unboundedFields(toOpenApiSchema(spec)).sort()).toEqual([
      '.hosts',
      '.hosts[].ip',
      '.keys',
      '.labels',
      '.labels{}',
      '.name',
    ]);
  });

  it('bounds them with the defaults and keeps the bounds a field names itself', () => {
    const bounded = boundInputSchema(toOpenApiSchema(spec));
    expect(unboundedFields(bounded)).toEqual([]);
    const p = bounded['properties'] as Record<string, Record<string, unknown>>;
    expect(p['name']?.['maxLength']).toBe(DEFAULT_INPUT_BOUNDS.string);
    expect(p['image']?.['maxLength']).toBe(512);
    expect(p['mode']).not.toHaveProperty('maxLength');
    expect(p['replicas']?.['maximum']).toBe(32);
    expect(p['keys']?.['maximum']).toBe(DEFAULT_INPUT_BOUNDS.number);
    expect(p['hosts']?.['maxItems']).toBe(DEFAULT_INPUT_BOUNDS.items);
    expect(p['labels']?.['maxProperties']).toBe(DEFAULT_INPUT_BOUNDS.properties);
  });

  it('buildCrd bounds the spec, not the status the operator writes', () => {
    const crd = buildCrd({
      group: 'example.org',
      kind: 'Thing',
      plural: 'things',
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: Type.Object({ spec, status: Type.Object({ message: Type.String() }) }),
        },
      ],
    }) as { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } };
    const schema = crd.spec.versions[0]?.schema.openAPIV3Schema as {
      properties: Record<'spec' | 'status', Record<string, unknown>>;
    };
    expect(unboundedFields(schema.properties.spec)).toEqual([]);
    expect(unboundedFields(schema.properties.status)).toEqual(['.message']);
  });
});
