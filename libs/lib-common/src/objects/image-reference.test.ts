import { describe, expect, it } from 'vitest';
import { failureMessage } from '../conditions/messages.js';
import { checkImageReferences, isValidImageReference } from './image-reference.js';

describe('image references', () => {
  it.each([
    'quay.io/podified-antelope-centos9/openstack-keystone:current-podified',
    'localhost/stackops/openstack-keystone:30.0.0',
    'localhost:5000/a/b:v1',
    'haproxy:2.3.2',
    'default/haproxy',
    'registry.test/multus:v1',
    `ghcr.io/k8snetworkplumbingwg/multus-cni@sha256:${'a'.repeat(64)}`,
    `quay.io/x/y:1.0@sha256:${'b'.repeat(64)}`,
    '[::1]:5000/img',
    'registry.test/linuxBridge:v1',
  ])('accepts %s', (image) => {
    expect(isValidImageReference(image)).toBe(true);
  });

  it.each(['quay.io/foo bar:1', ' quay.io/x', 'x:tag with space', 'quay.io/x:1\n', 'quay.io/\tx'])(
    'refuses %j',
    (image) => {
      expect(isValidImageReference(image)).toBe(false);
    },
  );

  it('a Job with an image a runtime cannot pull is refused like the API server would, naming object and field', () => {
    const job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'keystone-db-sync', namespace: 'o' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'quay.io/keystone with spaces:1' }] } } },
    };
    let thrown: unknown;
    try {
      checkImageReferences('Job', job);
    } catch (err) {
      thrown = err;
    }
    expect(failureMessage(thrown)).toEqual({
      severity: 'Error',
      eventReason: 'InvalidObject',
      message:
        'Job keystone-db-sync is invalid: spec.template.spec.containers[0].image: "quay.io/keystone with s…": not a valid image reference (no runtime can pull it)',
    });
    expect(() =>
      checkImageReferences('CronJob', {
        metadata: { name: 'c' },
        spec: { jobTemplate: { spec: { template: { spec: { containers: [{ image: 'a b' }] } } } } },
      } as never),
    ).toThrow(/spec\.jobTemplate\.spec\.template\.spec\.containers\[0\]\.image/);
  });
});
