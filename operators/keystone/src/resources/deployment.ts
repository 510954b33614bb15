import type { KubeObject } from '@stackops/lib-common/client';
import {
  API_PRE_STOP,
  buildDeployment,
  caBundleVolumes,
  endpointCertVolumes,
  httpProbe,
  tlsEnabled,
} from '@stackops/lib-common/openstack';
import type { KeystoneAPI } from '../api/keystone-api.js';
import type { ResolvedSpec } from '../config/spec.js';
import { extraMountsFor, KeystonePropagation } from './extra-mounts.js';
import { federationVolumes } from './federation.js';
import { memcachedMtlsVolumes } from './memcached-mtls.js';
import { KEYSTONE_PORT, KEYSTONE_UID, KeystoneNames, keystoneServiceLabels } from './names.js';
import { apiMounts, keystoneVolumes } from './volumes.js';

/**
 * The `keystone` Deployment: one `keystone-api` container (kolla starts httpd), probes on /v3,
 * `CONFIG_HASH` = the input hash so any config or certificate change rolls the pods, pods spread
 * across nodes; with `tls`, the CA bundle and each endpoint's certificate and key are mounted.
 */
export function buildKeystoneDeployment(
  cr: KeystoneAPI,
  spec: ResolvedSpec,
  configHash: string,
  podAnnotations: Record<string, string>,
  federationFilenames: readonly string[] = [],
): KubeObject {
  // upstream probes the public vhost's scheme (both vhosts listen on one port)
  const probe = httpProbe({
    path: '/v3',
    port: KEYSTONE_PORT,
    scheme: tlsEnabled(spec.tls, 'public') ? 'HTTPS' : 'HTTP',
  });
  const ca = caBundleVolumes(spec.tls);
  const certs = endpointCertVolumes(spec.tls);
  const extra = extraMountsFor(spec.extraMounts, KeystonePropagation.api);
  const federation = federationVolumes(federationFilenames);
  const mtls = memcachedMtlsVolumes(spec, 'api');
  return buildDeployment({
    name: KeystoneNames.deployment,
    namespace: cr.metadata.namespace ?? '',
    selector: keystoneServiceLabels(cr),
    podAnnotations,
    replicas: spec.replicas,
    serviceAccountName: KeystoneNames.serviceAccount(cr),
    nodeSelector: spec.nodeSelector,
    configHash,
    // upstream's order: base volumes, extra mounts, CA bundle, federation, memcached mTLS, endpoint certificates
    volumes: [
      ...keystoneVolumes(cr, spec.fernetMaxActiveKeys),
      ...extra.volumes,
      ...ca.volumes,
      ...federation.volumes,
      ...mtls.volumes,
      ...certs.volumes,
    ],
    containers: [
      {
        name: 'keystone-api',
        image: spec.containerImage,
        command: ['/bin/bash'],
        args: ['-c', '/usr/local/bin/kolla_start'],
        env: [{ name: 'KOLLA_CONFIG_STRATEGY', value: 'COPY_ALWAYS' }],
        ports: [{ name: 'keystone-api', containerPort: KEYSTONE_PORT, protocol: 'TCP' }],
        livenessProbe: probe,
        readinessProbe: probe,
        lifecycle: API_PRE_STOP,
        ...(spec.resources ? { resources: spec.resources } : {}),
        // No allowPrivilegeEscalation: false: kolla_start, run as keystone, copies the config
        // files through sudo, which the no_new_privs flag that setting sets refuses.
        securityContext: {
          runAsUser: KEYSTONE_UID,
          runAsGroup: KEYSTONE_UID,
          capabilities: { drop: ['MKNOD'] },
        },
        volumeMounts: [
          ...apiMounts,
          ...extra.mounts,
          ...ca.mounts,
          ...federation.mounts,
          ...mtls.mounts,
          ...certs.mounts,
        ],
      },
    ],
  });
}
