import { describe, expect, it } from 'vitest';
import { RequestCounter } from './client-metrics.js';

describe('RequestCounter', () => {
  it('counts by verb and code, and sums writes of every kind', () => {
    const c = new RequestCounter();
    c.record('get', 200);
    c.record('get', 404);
    c.record('list', 200);
    c.record('apply', 200);
    c.record('patch', 409);
    c.record('create', 201);
    c.record('delete', 200);
    c.record('update', '<error>');
    expect(c.count()).toBe(8);
    expect(c.count({ verb: 'get' })).toBe(2);
    expect(c.count({ verb: 'get', code: 404 })).toBe(1);
    expect(c.count({ code: 200 })).toBe(4);
    expect(c.writes()).toBe(5);
    expect(c.snapshot()).toMatchObject({ get: { '200': 1, '404': 1 }, update: { '<error>': 1 } });
    c.reset();
    expect(c.count()).toBe(0);
  });
});
