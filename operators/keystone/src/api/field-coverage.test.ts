import { fileURLToPath } from 'node:url';
import { assertFieldsCovered, crdVersionSchemas } from '@stackops/lib-common/schema';
import { readTestSources } from '@stackops/lib-common/testing';
import { describe, it } from 'vitest';
import { keystoneApiCrd, keystoneEndpointCrd, keystoneServiceCrd } from './crds.js';

/**
 * Issue 16's rule for keystone's CRDs: every spec field is either proven by a named behaviour test
 * (its title must exist in this package's tests) or refused by the API server with a CEL message
 * saying it is not supported yet. A new field fails here until it is one or the other.
 */
const testSources = readTestSources(fileURLToPath(new URL('../..', import.meta.url)));
const schemaOf = (crd: typeof keystoneApiCrd) => crdVersionSchemas(crd)[0]?.schema ?? {};

const keystoneApiCoverage = {
  'spec.containerImage': 'containerImage is the image of every container; empty takes the operator default',
  'spec.databaseInstance': 'waits for the database Service, naming it, and creates nothing before',
  'spec.databaseAccount': 'databaseAccount is the SQL user of the connection URL (dashes as underscores)',
  'spec.memcachedInstance': 'memcachedInstance: waits for the Service, then keystone.conf caches through it',
  'spec.region': 'region, adminUser and adminProject go to bootstrap and clouds.yaml',
  'spec.adminProject': 'region, adminUser and adminProject go to bootstrap and clouds.yaml',
  'spec.adminUser': 'region, adminUser and adminProject go to bootstrap and clouds.yaml',
  'spec.replicas': 'scales 3 → 1 → 0 → 1, reporting readyCount; 0 replicas is Ready',
  'spec.secret':
    'without its Secret: finalizer, every condition initialised, InputReady False, checked again in 10 s',
  'spec.enableSecureRBAC': 'enableSecureRBAC false turns enforce_scope and enforce_new_defaults off',
  'spec.trustFlushArgs':
    'trustFlushArgs, trustFlushSchedule and trustFlushSuspend shape the keystone-cron CronJob',
  'spec.trustFlushSchedule':
    'trustFlushArgs, trustFlushSchedule and trustFlushSuspend shape the keystone-cron CronJob',
  'spec.trustFlushSuspend':
    'trustFlushArgs, trustFlushSchedule and trustFlushSuspend shape the keystone-cron CronJob',
  'spec.fernetRotationDays':
    'converges in upstream order to Ready; then a pass writes nothing and comes back at the next rotation',
  'spec.fernetMaxActiveKeys': 'fernetMaxActiveKeys 3 gives exactly FernetKeys0..2; 100 gives 100',
  'spec.passwordSelectors': 'passwordSelectors.admin names the key bootstrap reads the admin password from',
  'spec.nodeSelector':
    'nodeSelector reaches the Deployment, the Jobs and the CronJob; changing and clearing it follows',
  'spec.preserveJobs': 'preserveJobs keeps the Jobs (no TTL); without it they expire 600 s after finishing',
  'spec.customServiceConfig': 'customServiceConfig becomes custom.conf and defaultConfigOverwrite adds files',
  'spec.defaultConfigOverwrite':
    'customServiceConfig becomes custom.conf and defaultConfigOverwrite adds files',
  'spec.httpdCustomization.processNumber':
    'apiTimeout and httpdCustomization.processNumber reach every vhost',
  'spec.httpdCustomization.customConfigSecret':
    'customConfigSecret: each key becomes httpd_custom_<endpoint>_<key>, included in each vhost and copied by kolla',
  'spec.httpdCustomization': 'apiTimeout and httpdCustomization.processNumber reach every vhost',
  'spec.resources': 'resources are the keystone-api container resources',
  'spec.networkAttachments':
    'additional networks example: pods get the multus annotation; Ready once they report an IP on storage',
  'spec.networkAttachents': 'fills upstream defaults and merges the misspelt networkAttachents',
  'spec.override': 'override endpointURL publishes that URL for public; internal stays the Service URL',
  'spec.externalEndpoints': 'maps the README externalEndpoints form to a MetalLB LoadBalancer',
  'spec.rabbitMqClusterName':
    'notificationsBus: a TransportURL, RabbitMqTransportURLReady, [oslo_messaging_notifications] and quorum queues',
  'spec.notificationsBus':
    'notificationsBus: a TransportURL, RabbitMqTransportURLReady, [oslo_messaging_notifications] and quorum queues',
  'spec.tls': 'waits in TLSInputReady naming the missing Secrets, recovers when they appear, publishes https',
  'spec.apiTimeout': 'apiTimeout and httpdCustomization.processNumber reach every vhost',
  'spec.topologyRef':
    'topologyRef: the Topology places the Deployment and the Jobs, holds its finalizer, lastAppliedTopology',
  'spec.extraMounts':
    'extraMounts: mounts volumes with no propagation, Keystone or All into the API pods only',
  'spec.federatedRealmConfig':
    'federatedRealmConfig: a missing key is an error and an Event naming it; then the realm files are mounted',
  'spec.externalKeystoneAPI': 'external mode publishes the given endpoints and deploys nothing',
};

const keystoneServiceCoverage = {
  'spec.serviceType': 'registers the service, and its user in project service with roles admin and service',
  'spec.serviceName': 'registers the service, and its user in project service with roles admin and service',
  'spec.serviceDescription': 'updates the service in place and the user password when the Secret changes',
  'spec.enabled': 'updates the service in place and the user password when the Secret changes',
  'spec.serviceUser': 'registers the service, and its user in project service with roles admin and service',
  'spec.secret': 'waits for its password Secret, names a missing key, and recovers',
  'spec.passwordSelector': 'waits for its password Secret, names a missing key, and recovers',
};

const keystoneEndpointCoverage = {
  'spec.serviceName': 'waits for its KeystoneService, mirroring its state, and registers once it is ready',
  'spec.endpoints': 'updates a URL in place, deletes a removed interface and creates an added one',
};

describe('field coverage (issue 16: every field works or is refused)', () => {
  it('every KeystoneAPI spec field is proven by a named test or refused by CEL', () => {
    assertFieldsCovered(schemaOf(keystoneApiCrd), keystoneApiCoverage, { testSources });
  });
  it('every KeystoneService spec field is proven by a named test or refused by CEL', () => {
    assertFieldsCovered(schemaOf(keystoneServiceCrd), keystoneServiceCoverage, { testSources });
  });
  it('every KeystoneEndpoint spec field is proven by a named test or refused by CEL', () => {
    assertFieldsCovered(schemaOf(keystoneEndpointCrd), keystoneEndpointCoverage, { testSources });
  });
});
