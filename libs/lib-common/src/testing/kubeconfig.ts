import { KubeConfig } from '@kubernetes/client-node';

/**
 * The kubeconfig of the control plane the test run uses: kube-env's vitest global setup puts its
 * path in KUBECONFIG before the test workers start.
 */
export function loadTestKubeConfig(path: string | undefined = process.env['KUBECONFIG']): KubeConfig {
  if (!path) {
    throw new Error(
      'KUBECONFIG is not set: run integration tests through vitest with globalSetup @stackops/kube-env/vitest-setup',
    );
  }
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}
