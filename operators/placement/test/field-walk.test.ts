import { fileURLToPath } from 'node:url';
import { assertFieldsCovered, crdVersionSchemas } from '@stackops/lib-common/schema';
import { readTestSources } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { placementApiCrd } from '../src/api/crds.js';

/**
 * No PlacementAPI field is accepted and ignored: each is proven by a named behaviour test (the
 * walk checks the title still exists in a test file) or refused by the API server with a message
 * saying it is not supported yet. A new field fails this test until it gets one or the other.
 */

const testSources = readTestSources(fileURLToPath(new URL('..', import.meta.url)));

/** Field → the test proving it works, or 'refused'. A covered field covers its descendants. */
const PLACEMENT_API_FIELD_COVERAGE: Record<string, string> = {
  'spec.containerImage': 'API Example: becomes Ready with the given image',
  'spec.apiTimeout': 'renders one virtual host per endpoint on 8778 with the API timeout',
  'spec.serviceUser': 'fills [keystone_authtoken] from the KeystoneAPI endpoints, region and service user',
  'spec.databaseInstance': 'reports the missing database Service, then the missing KeystoneAPI, then goes on',
  'spec.databaseAccount':
    'uses the key passwordSelectors.database names and the databaseAccount as the SQL user',
  'spec.replicas': 'scaling changes the replica count only: no new pod template, no re-run',
  'spec.secret': 'is defaulted by the schema, gets the finalizer and reports the missing Secret',
  'spec.passwordSelectors':
    'creates database, config, RBAC, Services, db-sync, Deployment, then the keystone children, and gets Ready',
  'spec.passwordSelectors.service': 'a service password change rolls the pods with the new password',
  'spec.passwordSelectors.database':
    'uses the key passwordSelectors.database names and the databaseAccount as the SQL user',
  'spec.nodeSelector':
    'a nodeSelector reaches the pods and the db-sync Job, which runs again for its new pod spec',
  'spec.preserveJobs': 'preserveJobs keeps finished Jobs (no TTL); by default they go 600 s after finishing',
  'spec.customServiceConfig': 'a customServiceConfig change rolls the pods with the new custom.conf',
  'spec.defaultConfigOverwrite': 'adds policy.yaml only when defaultConfigOverwrite carries it',
  'spec.resources': 'gives both containers spec.resources',
  'spec.networkAttachments':
    'additional networks: waits for the NAD, attaches the pods, reports their addresses',
  'spec.networkAttachents':
    'additional networks: waits for the NAD, attaches the pods, reports their addresses',
  'spec.override':
    'isolated network through MetalLB: a LoadBalancer internal Service, registered under its service name',
  'spec.override.service':
    'isolated network through MetalLB: a LoadBalancer internal Service, registered under its service name',
  'spec.override.service.*.endpointURL': 'publishes the given public URL in the KeystoneEndpoint',
  'spec.override.probes':
    'merges override.probes field by field (set fields win), and adds a startup probe only when asked',
  'spec.tls': 'waits for its TLS Secrets by name, then serves https and publishes https endpoints',
  'spec.tls.api':
    'waits in TLSInputReady naming the missing CA bundle, then the missing certificate, and recovers',
  'spec.tls.caBundleSecretName':
    'mounts the CA bundle (not the endpoint certificates) when tls has a caBundleSecretName',
  'spec.topologyRef':
    'waits for the named Topology, then places the Deployment and the db-sync Job by it and holds its finalizer',
  'spec.auth':
    'placement.conf logs in with the application credential of the Secret watched by name; a new Secret rolls the pods and moves the consumer finalizer',
  'spec.auth.applicationCredentialSecret':
    'placement.conf logs in with the application credential of the Secret watched by name; a new Secret rolls the pods and moves the consumer finalizer',
};

describe('PlacementAPI field walk', () => {
  it('every spec field works (a named test proves it) or is refused as not supported yet', () => {
    const schema = crdVersionSchemas(placementApiCrd)[0]!.schema;
    expect(() => assertFieldsCovered(schema, PLACEMENT_API_FIELD_COVERAGE, { testSources })).not.toThrow();
  });
});
