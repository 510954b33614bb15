import { describe, expect, it } from 'vitest';
import { postProcess, readCrdInfos } from '../src/generate.js';
import { syncGeneratedTypes } from '../src/output.js';

describe('crd-types', () => {
  it('reads group, version, kind and plural from every CRD file', async () => {
    const infos = await readCrdInfos();
    expect(infos.map((i) => `${i.kind}.${i.version}.${i.group}/${i.plural}`)).toEqual([
      'Galera.v1beta1.mariadb.openstack.org/galeras',
      'MariaDBAccount.v1beta1.mariadb.openstack.org/mariadbaccounts',
      'MariaDBDatabase.v1beta1.mariadb.openstack.org/mariadbdatabases',
      'Memcached.v1beta1.memcached.openstack.org/memcacheds',
      'TransportURL.v1beta1.rabbitmq.openstack.org/transporturls',
      'Topology.v1beta1.topology.openstack.org/topologies',
      'NetworkAttachmentDefinition.v1.k8s.cni.cncf.io/network-attachment-definitions',
      'BareMetalHost.v1alpha1.metal3.io/baremetalhosts',
    ]);
  });

  it('prefixes nested names with the kind, turns enums into unions and types metadata', () => {
    const out = postProcess(
      'export interface Memcached {\n  metadata?:   { [key: string]: any };\n  spec?: Spec;\n}\nexport interface Spec {\n  mode?: Mode;\n  since?: Date;\n}\nexport enum Mode {\n  A = "A",\n  B = "B",\n}\n',
      'Memcached',
      '/x/memcached.yaml',
    );
    expect(out).toContain('metadata: ObjectMeta;');
    expect(out).toContain('spec?: MemcachedSpec;');
    expect(out).toContain('export type MemcachedMode = "A" | "B";');
    expect(out).not.toMatch(/\bany\b/);
    expect(out).toContain('since?: string;');
  });

  it('types upstream-shaped conditions as the one shared ExternalCondition', () => {
    const body =
      '{\n lastTransitionTime: string;\n message?: string;\n reason?: string;\n severity?: string;\n status: string;\n type: string;\n [property: string]: any;\n}';
    const out = postProcess(
      `export interface Memcached {\n  status?: Status;\n}\nexport interface Status {\n  conditions?: Condition[];\n}\nexport interface Condition ${body}\nexport interface Other ${body.replace('type: string;', 'kind: string;')}\n`,
      'Memcached',
      '/x/memcached.yaml',
    );
    expect(out).toContain("import type { ExternalCondition } from './condition.js';");
    expect(out).toContain('export type MemcachedCondition = ExternalCondition;');
    // A differing body keeps its own interface.
    expect(out).toContain('export interface MemcachedOther {');
  });

  it('the committed files in lib-common are what the generator produces now', async () => {
    expect(await syncGeneratedTypes('check')).toEqual([]);
    // Eight generator processes and ten formatter runs: ~12 s of CPU, minutes on a loaded machine.
  }, 180_000);
});
