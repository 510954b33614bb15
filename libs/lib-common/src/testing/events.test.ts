import { describe, expect, it } from 'vitest';
import { Kinds } from '../client/kinds.js';
import type { KubeObject } from '../client/types.js';
import { eventsIn, failedCondition, REQUEST_LINE } from './events.js';
import { FakeKubeClient } from './fake.js';

describe('failure vocabulary', () => {
  it('eventsIn: the namespace’s Events, or only those about one object', async () => {
    const fake = new FakeKubeClient();
    const event = (name: string, about: string) => ({
      metadata: { name, namespace: 'ns' },
      involvedObject: { name: about },
      reason: 'R',
    });
    fake.seed(Kinds.Event, event('e1', 'a'), event('e2', 'b'), {
      ...event('e3', 'a'),
      metadata: { name: 'e3', namespace: 'other' },
    });
    expect((await eventsIn(fake, 'ns')).map((e) => e.metadata.name).sort()).toEqual(['e1', 'e2']);
    expect((await eventsIn(fake, 'ns', 'a')).map((e) => e.metadata.name)).toEqual(['e1']);
  });

  it('failedCondition: the first False condition with reason Error other than Ready', () => {
    const obj = (conditions: object[]) => ({ metadata: { name: 'x' }, status: { conditions } }) as KubeObject;
    const c = (type: string, status: string, reason: string) => ({ type, status, reason });
    expect(
      failedCondition(
        obj([c('Ready', 'False', 'Error'), c('A', 'False', 'Requested'), c('B', 'False', 'Error')]),
      )?.type,
    ).toBe('B');
    expect(failedCondition(obj([c('Ready', 'False', 'Error'), c('A', 'True', 'Ready')]))).toBeUndefined();
    expect(failedCondition(undefined)).toBeUndefined();
  });

  it('REQUEST_LINE catches a request line, a local URL, an API path and query parameters, not plain words', () => {
    for (const bad of [
      'PATCH /apis/x',
      'http://127.0.0.1:6443',
      'at /api/v1/namespaces',
      '?fieldManager=x',
      '&force=true',
    ])
      expect(bad).toMatch(REQUEST_LINE);
    expect('Job keystone-db-create is invalid: spec.template: name too long').not.toMatch(REQUEST_LINE);
  });
});
