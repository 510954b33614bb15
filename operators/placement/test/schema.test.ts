import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiError, KubeObject } from '@stackops/lib-common/client';
import { runCommand, useTestNamespace } from '@stackops/lib-common/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { PlacementAPIKind } from '../src/api/kinds.js';
import { installCrds, tool } from './support/harness.js';

/** Bad input is rejected by the API server itself (CRD schema and CEL), with a message naming the field. */

const t = useTestNamespace(
  { beforeAll, afterAll, beforeEach, afterEach },
  { prefix: 'pl-schema', crds: installCrds, fieldManager: 'placement-tests', scope: 'file' },
);

const valid = { databaseInstance: 'openstack', secret: 'osp-secret' };

async function rejection(spec: Record<string, unknown>): Promise<string> {
  try {
    await t.admin.create(PlacementAPIKind, {
      apiVersion: 'placement.openstack.org/v1beta1',
      kind: 'PlacementAPI',
      metadata: { generateName: 'bad-', namespace: t.ns.name },
      spec,
    });
  } catch (err) {
    expect((err as ApiError).code).toBe(422);
    return (err as ApiError).statusMessage;
  }
  throw new Error(`accepted: ${JSON.stringify(spec)}`);
}

describe('PlacementAPI schema', () => {
  it.each([
    [
      'defaultConfigOverwrite other than policy.yaml',
      { ...valid, defaultConfigOverwrite: { 'policy.json': '{}' } },
      'spec.defaultConfigOverwrite: Only the following keys are valid: policy.yaml',
    ],
    [
      'override.service key other than internal/public',
      { ...valid, override: { service: { admin: {} } } },
      'spec.override.service keys must be one of: internal, public',
    ],
    [
      'a containerImage with whitespace',
      { ...valid, containerImage: 'quay.io/x/placement :latest' },
      'spec.containerImage: Invalid value: "quay.io/x/placement :latest"',
    ],
    ['replicas above 32', { ...valid, replicas: 33 }, 'spec.replicas: Invalid value: 33'],
    [
      'a passwordSelectors.service that is no Secret key',
      { ...valid, passwordSelectors: { service: '..' } },
      'spec.passwordSelectors.service: Invalid value: "..": spec.passwordSelectors.service in body should match',
    ],
    [
      'a networkAttachments name that is no object name',
      { ...valid, networkAttachments: ['Internal_API'] },
      'spec.networkAttachments[0]: Invalid value: "Internal_API"',
    ],
    ['negative replicas', { ...valid, replicas: -1 }, 'spec.replicas: Invalid value: -1'],
    ['apiTimeout below 10', { ...valid, apiTimeout: 5 }, 'apiTimeout must be at least 10 (or 0 for 60)'],
    ['negative apiTimeout', { ...valid, apiTimeout: -1 }, 'spec.apiTimeout: Invalid value: -1'],
    ['no secret', { databaseInstance: 'openstack' }, 'spec.secret: Required value'],
    ['no databaseInstance', { secret: 'osp-secret' }, 'spec.databaseInstance: Required value'],
    [
      'empty databaseInstance',
      { ...valid, databaseInstance: '' },
      'spec.databaseInstance: Invalid value: ""',
    ],
    [
      'a databaseAccount that is no SQL identifier',
      { ...valid, databaseAccount: 'place-ment' },
      'spec.databaseAccount: Invalid value: "place-ment"',
    ],
    [
      'an Exec probe without a command',
      { ...valid, override: { probes: { livenessProbes: { type: 'Exec' } } } },
      'command is required for exec probe type',
    ],
    [
      'a probe path without a leading slash',
      { ...valid, override: { probes: { readinessProbes: { path: 'health' } } } },
      'spec.override.probes.readinessProbes.path: Invalid value: "health"',
    ],
  ])('rejects %s', async (_what, spec, message) => {
    expect(await rejection(spec)).toContain(message);
  });

  it('accepts the zero values upstream manifests carry for what is refused, tls and probe overrides', async () => {
    const created = await t.admin.create<KubeObject & { spec: Record<string, unknown> }>(PlacementAPIKind, {
      apiVersion: 'placement.openstack.org/v1beta1',
      kind: 'PlacementAPI',
      metadata: { generateName: 'zero-', namespace: t.ns.name },
      spec: {
        ...valid,
        apiTimeout: 0,
        topologyRef: {},
        auth: { applicationCredentialSecret: '' },
        tls: { api: { internal: {}, public: {} }, caBundleSecretName: 'combined-ca-bundle' },
        override: { probes: { livenessProbes: { periodSeconds: 10 } } },
      },
    });
    expect(created.spec['passwordSelectors']).toEqual({ service: 'PlacementPassword' });
    expect(created.spec['apiTimeout']).toBe(0);
  });

  it('accepts policy.yaml and both endpoint overrides', async () => {
    const created = await t.admin.create<KubeObject>(PlacementAPIKind, {
      apiVersion: 'placement.openstack.org/v1beta1',
      kind: 'PlacementAPI',
      metadata: { generateName: 'good-', namespace: t.ns.name },
      spec: {
        ...valid,
        defaultConfigOverwrite: { 'policy.yaml': '"placement:resource_providers:list": ""' },
        override: {
          service: { internal: { spec: { type: 'LoadBalancer' } }, public: { endpointURL: 'http://x' } },
        },
      },
    });
    expect(created.metadata.name).toMatch(/^good-/);
  });

  it('kubectl rejects a misspelt field (strict field validation) and names it', async () => {
    const file = join(tmpdir(), `placement-typo-${process.pid}.yaml`);
    writeFileSync(
      file,
      stringify({
        apiVersion: 'placement.openstack.org/v1beta1',
        kind: 'PlacementAPI',
        metadata: { name: 'typo', namespace: t.ns.name },
        spec: { ...valid, replica: 2 },
      }),
    );
    try {
      // runCommand's error carries kubectl's stderr.
      await expect(runCommand(tool('kubectl'), ['apply', '-f', file])).rejects.toThrow(
        'unknown field "spec.replica"',
      );
    } finally {
      rmSync(file, { force: true });
    }
  });
});
