import { join } from 'node:path';
import { assertFieldsCovered, crdVersionCases } from '@stackops/lib-common/schema';
import { readTestSources } from '@stackops/lib-common/testing';
import { describe, expect, it } from 'vitest';
import { crdDefinitions } from './crds.js';

/** Every test file of the package: a coverage entry must name a test found in one of them. */
const testSources = readTestSources(join(import.meta.dirname, '../..'));

/**
 * Every field of the SIPCluster spec and the behaviour test that proves it works, or `refused`
 * (`clusterIP`, which upstream accepts and ignores). A new field fails this walk until it is
 * implemented and tested, or refused by CEL as "not supported yet".
 */
const coverage = {
  'spec.nodes': 'schedules the hosts, deploys the services, then labels the hosts',
  'spec.nodes.*.labelSelector': 'matchExpressions select as Kubernetes does',
  'spec.nodes.*.topologyKey': 'anti-affinity applies within a role, not across roles',
  'spec.nodes.*.count': 'takes active + standby hosts',
  'spec.services': 'schedules the hosts, deploys the services, then labels the hosts',
  'spec.services.loadBalancerControlPlane':
    'control plane: haproxy.cfg forwards 6443 to every ControlPlane host, checked on /readyz',
  'spec.services.loadBalancerWorker':
    'worker: one frontend per port of the range, to the same port on the workers',
  'spec.services.loadBalancerControlPlane[].image':
    "a service's image from the spec wins over the operator's default",
  'spec.services.loadBalancerWorker[].image':
    "a service's image from the spec wins over the operator's default",
  'spec.services.jumpHost[].image': "a service's image from the spec wins over the operator's default",
  'spec.services.auth[].image': "a service's image from the spec wins over the operator's default",
  'spec.services.loadBalancerControlPlane[].nodeLabels': 'uses nodeLabels as the nodeSelector',
  'spec.services.loadBalancerWorker[].nodeLabels': 'uses nodeLabels as the nodeSelector',
  'spec.services.jumpHost[].nodeLabels': 'uses nodeLabels as the nodeSelector',
  'spec.services.auth[].nodeLabels': 'uses nodeLabels as the nodeSelector',
  'spec.services.loadBalancerControlPlane[].nodeInterfaceId':
    'a host without the interface gives an Error condition naming the host and the interface',
  'spec.services.loadBalancerWorker[].nodeInterfaceId':
    'a host without the interface gives an Error condition naming the host and the interface',
  'spec.services.jumpHost[].nodeInterfaceId':
    'a host without the interface gives an Error condition naming the host and the interface',
  'spec.services.auth[].nodeInterfaceId':
    'a host without the interface gives an Error condition naming the host and the interface',
  'spec.services.loadBalancerControlPlane[].clusterIP': 'refused',
  'spec.services.loadBalancerWorker[].clusterIP': 'refused',
  'spec.services.jumpHost[].clusterIP': 'refused',
  'spec.services.auth[].clusterIP': 'refused',
  'spec.services.loadBalancerControlPlane[].nodePort':
    'control plane: haproxy.cfg forwards 6443 to every ControlPlane host, checked on /readyz',
  'spec.services.loadBalancerWorker[].nodePortRange':
    'worker: one frontend per port of the range, to the same port on the workers',
  'spec.services.jumpHost': 'hosts file lists every host with its BMC',
  'spec.services.jumpHost[].nodePort': 'schedules the hosts, deploys the services, then labels the hosts',
  'spec.services.jumpHost[].bmc': 'with bmc.proxy the proxy variables are left alone',
  'spec.services.jumpHost[].sshAuthorizedKeys':
    'pods resolve the hosts, bypass proxies for the BMC and carry the authorized keys',
  'spec.services.jumpHost[].nodeSSHPrivateKeys': 'ssh_config uses every private key and lists every host',
  'spec.services.auth': 'config has the issuer, clients with secretEnv, and the connectors',
  'spec.services.auth[].nodePort': 'schedules the hosts, deploys the services, then labels the hosts',
  'spec.services.auth[].issuer': 'config has the issuer, clients with secretEnv, and the connectors',
  'spec.services.auth[].staticClients': 'config has the issuer, clients with secretEnv, and the connectors',
  'spec.services.auth[].connectors': 'config has the issuer, clients with secretEnv, and the connectors',
  'spec.services.auth[].tlsSecret':
    'the Deployment gets client secrets from their Secrets and serves HTTPS with tlsSecret',
  'spec.services.auth[].envFromSecret':
    'the Deployment gets client secrets from their Secrets and serves HTTPS with tlsSecret',
} as const;

describe('field walk: every SIPCluster field works or is refused', () => {
  it.each(crdVersionCases(crdDefinitions))('%s', (_version, schema) => {
    const result = assertFieldsCovered(schema, coverage, { testSources });
    expect(result.fields.length).toBeGreaterThan(40);
  });
});
