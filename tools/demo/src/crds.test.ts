import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isOurFinalizer, stackopsCrds } from './crds.js';

const repoRoot = resolve(import.meta.dirname, '../../..');

/** metadata.name of every CRD in the operator charts' crds/ folders. */
function chartCrdNames(): string[] {
  const names: string[] = [];
  for (const chart of readdirSync(join(repoRoot, 'charts')).filter((c) => c.endsWith('-operator'))) {
    const dir = join(repoRoot, 'charts', chart, 'crds');
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml')))
      names.push((parse(readFileSync(join(dir, f), 'utf8')) as { metadata: { name: string } }).metadata.name);
  }
  return names.sort();
}

/** The CRD names a document's `kubectl delete crd …` command deletes (line continuations joined). */
function documentedCrdDeletion(text: string): string[] {
  const line = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .find((l) => /kubectl delete crd /.test(l));
  return (line ?? '')
    .replace(/.*kubectl delete crd /, '')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .sort();
}

describe("this project's CRDs", () => {
  it('are exactly the CRDs in the operator charts', () => {
    expect([...stackopsCrds].sort()).toEqual(chartCrdNames());
    expect(new Set(stackopsCrds).size).toBe(stackopsCrds.length);
  });

  for (const doc of ['charts/stackops/templates/NOTES.txt', 'tools/demo/README.md']) {
    it(`${doc} deletes exactly them, by name, never by a pattern over shared groups`, () => {
      const text = readFileSync(join(repoRoot, doc), 'utf8');
      expect(documentedCrdDeletion(text)).toEqual([...stackopsCrds].sort());
      expect(text).not.toMatch(/get crd[^\n]*\|\s*grep/);
      expect(text).not.toMatch(/xargs kubectl delete/);
    });
  }

  it("tells this project's finalizers from anyone else's", () => {
    for (const f of [
      'openstack.org/keystoneapi',
      'openstack.org/keystoneservice-placement',
      'openstack.org/keystoneendpoint-placement',
      'openstack.org/placementapi',
      'sip.airship.airshipit.org/finalizer',
    ])
      expect(isOurFinalizer(f), f).toBe(true);
    for (const f of [
      'openstack.org/glanceapi',
      'openstack.org/keystoneapiextra/x',
      'kubevirt.io/virtualMachineControllerFinalize',
      'baremetalhost.metal3.io',
      'foregroundDeletion',
    ])
      expect(isOurFinalizer(f), f).toBe(false);
  });
});
