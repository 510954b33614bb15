import { describe, expect, it } from 'vitest';
import { Registry } from './prom-client.js';
import { readyValue, trackResourceReady } from './resource-ready.js';

const obj = (name: string, conditions?: { type: string; status: string }[]) => ({
  metadata: { name, namespace: 'ns' },
  ...(conditions ? { status: { conditions } } : {}),
});

describe('stackops_resource_ready', () => {
  it('is 1 for Ready True, else 0; Available stands in only where there is no Ready', () => {
    expect(readyValue(obj('a', [{ type: 'Ready', status: 'True' }]))).toBe(1);
    expect(readyValue(obj('b', [{ type: 'Ready', status: 'False' }]))).toBe(0);
    expect(readyValue(obj('c', [{ type: 'Ready', status: 'Unknown' }]))).toBe(0);
    expect(readyValue(obj('d'))).toBe(0);
    expect(readyValue(obj('e', [{ type: 'Available', status: 'True' }]))).toBe(1);
    expect(
      readyValue(
        obj('f', [
          { type: 'Available', status: 'True' },
          { type: 'Ready', status: 'False' },
        ]),
      ),
    ).toBe(0);
  });

  it('reads the objects when scraped: a deleted object drops out, a controller whose cache is not started says nothing', async () => {
    const registry = new Registry();
    let objects = [obj('one', [{ type: 'Ready', status: 'True' }]), obj('two')];
    trackResourceReady('thing', () => objects, registry);
    trackResourceReady(
      'other',
      () => {
        throw new Error('not started');
      },
      registry,
    );
    expect(await registry.metrics()).toContain(
      'stackops_resource_ready{controller="thing",resource_namespace="ns",resource_name="one"} 1\n' +
        'stackops_resource_ready{controller="thing",resource_namespace="ns",resource_name="two"} 0',
    );
    objects = [obj('two', [{ type: 'Ready', status: 'True' }])];
    const text = await registry.metrics();
    expect(text).not.toContain('resource_name="one"');
    expect(text).toContain(
      'stackops_resource_ready{controller="thing",resource_namespace="ns",resource_name="two"} 1',
    );
    expect(text).not.toContain('controller="other"');
  });
});
