import setup from '@stackops/kube-env/vitest-setup';
import type { TestProject } from 'vitest/node';

/**
 * kube-env's global setup, always on a private cluster: the migration test replaces the
 * KeystoneAPI CRD, which would disturb other packages' tests on a shared (`KUBE_ENV_REUSE`) one.
 */
export default async function privateCluster(project: TestProject) {
  delete process.env['KUBE_ENV_REUSE'];
  return setup(project);
}
