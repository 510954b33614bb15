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

type Json = Record<string, unknown>;

/** The pod template of a built Deployment, Job or CronJob (a CronJob's through its jobTemplate). */
export const podTemplateOf = (obj: Json): Json => {
  const spec = obj['spec'] as Json;
  return (spec['jobTemplate'] ? ((spec['jobTemplate'] as Json)['spec'] as Json) : spec)['template'] as Json;
};

/** Its pod spec. */
export const podSpecOf = (obj: Json): Json => podTemplateOf(obj)['spec'] as Json;

/** Its first container. */
export const firstContainerOf = (obj: Json): Json => (podSpecOf(obj)['containers'] as Json[])[0] as Json;
