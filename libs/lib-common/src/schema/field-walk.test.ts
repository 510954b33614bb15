import { describe, expect, it } from 'vitest';
import { assertFieldsCovered, schemaFieldPaths, walkFields } from './field-walk.js';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: '!has(self.tls)', message: 'tls is not supported yet' },
        { rule: 'self.replicas >= 0', message: 'replicas must not be negative' },
      ],
      properties: {
        replicas: { type: 'integer' },
        tls: { type: 'object', properties: { secretName: { type: 'string' } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        mounts: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, path: { type: 'string' } } },
        },
        legacy: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == ""', message: 'legacy is not supported yet' }],
        },
      },
    },
    status: { type: 'object', properties: { ready: { type: 'boolean' } } },
  },
};

const tests = ["it('scales to the replicas asked', …)", 'it("mounts every volume", …)'];

describe('field walk', () => {
  it('lists every field under spec, through arrays and maps, parents first', () => {
    expect(schemaFieldPaths(schema)).toEqual([
      'spec.replicas',
      'spec.tls',
      'spec.tls.secretName',
      'spec.labels',
      'spec.labels.*',
      'spec.mounts',
      'spec.mounts[].name',
      'spec.mounts[].path',
      'spec.legacy',
    ]);
  });

  it('passes when each field is refused by CEL or named by an existing test; a parent covers its children', () => {
    const r = assertFieldsCovered(
      schema,
      {
        'spec.replicas': 'scales to the replicas asked',
        'spec.tls': 'refused',
        'spec.legacy': 'refused',
        'spec.labels': 'scales to the replicas asked',
        'spec.mounts': 'mounts every volume',
      },
      { testSources: tests },
    );
    expect(r.uncovered).toEqual([]);
  });

  it('reports an ignored field, a refusal with no CEL rule, a missing test and a stale entry', () => {
    const r = walkFields(
      schema,
      {
        'spec.replicas': 'refused',
        'spec.tls': 'refused',
        'spec.labels': 'a test that does not exist',
        'spec.mounts[].name': 'mounts every volume',
        'spec.gone': 'refused',
      },
      { testSources: tests },
    );
    expect(r.uncovered).toEqual(['spec.mounts', 'spec.mounts[].path', 'spec.legacy']);
    expect(r.notRefused).toEqual(['spec.replicas']);
    expect(r.missingTests).toEqual([{ field: 'spec.labels', test: 'a test that does not exist' }]);
    expect(r.unknown).toEqual(['spec.gone']);
    expect(() => assertFieldsCovered(schema, {}, {})).toThrow(
      /spec\.replicas: neither proven by a test nor refused/,
    );
  });
});
