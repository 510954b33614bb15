import {
  clusterRole,
  clusterRoleBinding,
  configMap,
  fieldEnv,
  hostPath,
  looseCrd,
  meta,
  placementFields,
  requests,
  serviceAccount,
} from '../builders.js';
import { optional } from './component.js';

const NAME = 'nmstate-handler';
const CONFIG = 'nmstate-config';

const nmstateCrd = (
  kind: string,
  plural: string,
  singular: string,
  versions: { name: string; storage: boolean }[],
) =>
  looseCrd({
    group: 'nmstate.io',
    kind,
    plural,
    singular,
    scope: 'Cluster',
    versions: versions.map((v) => ({ ...v, status: true })),
  });

/**
 * The NMState handler on every node (experimental, as the upstream README says; upstream has since
 * moved it to its own operator, this operator keeps it): the nmstate.io CRDs, its RBAC and the
 * privileged DaemonSet that talks to NetworkManager over the host's D-Bus.
 */
export const nmstate = optional('nmstate', (_spec, ctx) => {
  const ns = ctx.namespace;
  const labels = { app: 'kubernetes-nmstate', component: 'kubernetes-nmstate-handler' };
  return [
    nmstateCrd('NodeNetworkState', 'nodenetworkstates', 'nodenetworkstate', [
      { name: 'v1beta1', storage: true },
    ]),
    nmstateCrd(
      'NodeNetworkConfigurationPolicy',
      'nodenetworkconfigurationpolicies',
      'nodenetworkconfigurationpolicy',
      [
        { name: 'v1', storage: true },
        { name: 'v1beta1', storage: false },
      ],
    ),
    nmstateCrd(
      'NodeNetworkConfigurationEnactment',
      'nodenetworkconfigurationenactments',
      'nodenetworkconfigurationenactment',
      [{ name: 'v1beta1', storage: true }],
    ),
    serviceAccount(NAME, ns),
    clusterRole(NAME, [
      { apiGroups: ['nmstate.io'], resources: ['*'], verbs: ['*'] },
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
    ]),
    clusterRoleBinding(NAME, NAME, { name: NAME, namespace: ns }),
    configMap(CONFIG, ns, { interfaces_filter: 'veth*' }),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(NAME, ns, labels),
      spec: {
        selector: { matchLabels: { name: NAME } },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: { ...labels, name: NAME } },
          spec: {
            serviceAccountName: NAME,
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            ...placementFields(ctx.workloads),
            containers: [
              {
                name: NAME,
                image: ctx.images.nmstateHandler,
                imagePullPolicy: ctx.imagePullPolicy,
                env: [
                  { name: 'WATCH_NAMESPACE', value: '' },
                  fieldEnv('POD_NAME', 'metadata.name'),
                  fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
                  fieldEnv('NODE_NAME', 'spec.nodeName'),
                  { name: 'COMPONENT', value: 'kubernetes-nmstate-handler' },
                  {
                    name: 'INTERFACES_FILTER',
                    valueFrom: { configMapKeyRef: { name: CONFIG, key: 'interfaces_filter' } },
                  },
                  { name: 'NMSTATE_INSTANCE_NODE_LOCK_FILE', value: '/var/k8s_nmstate/handler_lock' },
                ],
                resources: requests('100m', '100Mi'),
                securityContext: { privileged: true },
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [
                  { name: 'dbus-socket', mountPath: '/run/dbus/system_bus_socket' },
                  { name: 'nmstate-lock', mountPath: '/var/k8s_nmstate' },
                ],
              },
            ],
            volumes: [
              hostPath('dbus-socket', '/run/dbus/system_bus_socket', 'Socket'),
              hostPath('nmstate-lock', '/var/k8s_nmstate'),
            ],
          },
        },
      },
    },
  ];
});
