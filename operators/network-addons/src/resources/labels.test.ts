import type { KubeObject } from '@stackops/lib-common/client';
import { describe, expect, it } from 'vitest';
import { toLabelValue, withOperatorLabels } from './labels.js';

const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { app: 'x' } } };
const deployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'kmp', labels: { 'control-plane': 'mac-controller-manager' } },
  spec: { template: { metadata: { labels: { app: 'kubemacpool' } } } },
};

describe('withOperatorLabels', () => {
  it('labels an object of an unlabelled CR with component=network and managed-by=cnao-operator only', () => {
    expect(withOperatorLabels(cm, {}, '0.1.0').metadata.labels).toEqual({
      app: 'x',
      'networkaddonsoperator.network.kubevirt.io/version': '0.1.0',
      'app.kubernetes.io/component': 'network',
      'app.kubernetes.io/managed-by': 'cnao-operator',
      'prometheus.cnao.io': 'true',
    });
  });

  it('takes component, part-of and version from the CR, never managed-by', () => {
    const labels = withOperatorLabels(
      cm,
      {
        'app.kubernetes.io/component': 'compute',
        'app.kubernetes.io/part-of': 'hco',
        'app.kubernetes.io/version': '1.2.3',
        'app.kubernetes.io/managed-by': 'someone',
      },
      '0.1.0',
    ).metadata.labels;
    expect(labels).toMatchObject({
      'app.kubernetes.io/component': 'compute',
      'app.kubernetes.io/part-of': 'hco',
      'app.kubernetes.io/version': '1.2.3',
      'app.kubernetes.io/managed-by': 'cnao-operator',
    });
  });

  it('opts KubeMacPool’s controller manager out of prometheus, and labels pod templates without the version', () => {
    const out = withOperatorLabels(deployment, {}, 'v0.2.0+build');
    expect(out.metadata.labels?.['prometheus.cnao.io']).toBe('false');
    expect(out.metadata.labels?.['networkaddonsoperator.network.kubevirt.io/version']).toBe('v0.2.0_build');
    const podLabels = (out['spec'] as { template: { metadata: { labels: Record<string, string> } } }).template
      .metadata.labels;
    expect(podLabels).toEqual({
      app: 'kubemacpool',
      'app.kubernetes.io/component': 'network',
      'app.kubernetes.io/managed-by': 'cnao-operator',
      'prometheus.cnao.io': 'false',
    });
  });
});

describe('toLabelValue', () => {
  it('replaces other characters with _ and cuts at 63', () => {
    expect(toLabelValue('a b/c')).toBe('a_b_c');
    expect(toLabelValue('x'.repeat(70))).toHaveLength(63);
    expect(toLabelValue('')).toBe('');
    expect(toLabelValue('v1.2-3_4')).toBe('v1.2-3_4');
  });
});
