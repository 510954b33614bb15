import type { KeystoneAPI } from '../src/api/keystone-api.js';

/** A KeystoneAPI as the API server returns it for the seed README's first example (defaults applied). */
export function sampleKeystoneAPI(spec: Partial<KeystoneAPI['spec']> = {}): KeystoneAPI {
  return {
    apiVersion: 'keystone.openstack.org/v1beta1',
    kind: 'KeystoneAPI',
    metadata: { name: 'keystone', namespace: 'openstack', uid: 'uid-1', generation: 1 },
    spec: {
      containerImage: 'quay.io/podified-antelope-centos9/openstack-keystone:current-podified',
      replicas: 1,
      secret: 'osp-secret',
      ...spec,
    },
  };
}
