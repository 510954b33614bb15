import type { ResolvedSpec } from '../config/spec.js';

type Json = Record<string, unknown>;

/**
 * The Memcached's mTLS client certificate (a cert-manager style Secret: tls.crt, tls.key, ca.crt),
 * mounted as upstream mounts it. The API pods get it under /var/lib/config-data/mtls/ and kolla
 * copies it to /etc/pki/tls/; the bootstrap Job and the CronJob, which run no kolla copy, get it
 * at /etc/pki/tls/ directly. The volume is named after the Secret, mode 0400 (0440 for the
 * CronJob). keystone.conf names the /etc/pki/tls/ paths.
 */
export function memcachedMtlsVolumes(
  spec: Pick<ResolvedSpec, 'memcachedMtlsSecret'>,
  pod: 'api' | 'job' | 'cron',
): { volumes: Json[]; mounts: Json[] } {
  const name = spec.memcachedMtlsSecret;
  if (!name) return { volumes: [], mounts: [] };
  const certDir = pod === 'api' ? '/var/lib/config-data/mtls/certs' : '/etc/pki/tls/certs';
  const keyDir = pod === 'api' ? '/var/lib/config-data/mtls/private' : '/etc/pki/tls/private';
  const mount = (mountPath: string, subPath: string) => ({ name, mountPath, subPath, readOnly: true });
  return {
    volumes: [{ name, secret: { secretName: name, defaultMode: pod === 'cron' ? 0o440 : 0o400 } }],
    mounts: [
      mount(`${certDir}/mtls.crt`, 'tls.crt'),
      mount(`${keyDir}/mtls.key`, 'tls.key'),
      mount(`${certDir}/mtls-ca.crt`, 'ca.crt'),
    ],
  };
}
