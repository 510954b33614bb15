import { networkPolicy } from '../builders.js';
import type { Component } from './component.js';

const allowed = { matchExpressions: [{ key: 'allow-access-cluster-services', operator: 'Exists' }] };

/**
 * Always rendered: lets the components' pods that carry `allow-access-cluster-services` reach the
 * API server and the cluster DNS when the operand namespace denies egress by default.
 */
export const networkPolicies: Component = {
  name: 'networkPolicy',
  enabled: () => true,
  render: (_spec, ctx) => [
    networkPolicy('cnao-allow-egress-to-cluster-api', ctx.namespace, {
      podSelector: allowed,
      policyTypes: ['Egress'],
      egress: [{ ports: [{ protocol: 'TCP', port: 6443 }] }],
    }),
    networkPolicy('cnao-allow-egress-to-cluster-dns', ctx.namespace, {
      podSelector: allowed,
      policyTypes: ['Egress'],
      egress: [
        {
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
              podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
            },
          ],
          ports: [
            { protocol: 'TCP', port: 53 },
            { protocol: 'UDP', port: 53 },
          ],
        },
      ],
    }),
  ],
};
