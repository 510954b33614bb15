import {
  clusterRole,
  clusterRoleBinding,
  configMap,
  fieldEnv,
  hostPath,
  meta,
  placementFields,
  requests,
  serviceAccount,
} from '../builders.js';
import { type Component, optional } from './component.js';

const NAME = 'dynamic-networks-controller';
const MULTUS_SOCKET = '/run/multus/multus.sock';

/** Probe through the multus daemon's socket: the controller is useless without it. */
const socketProbe = {
  exec: { command: ['curl', '--fail', '--unix-socket', `/host${MULTUS_SOCKET}`, 'localhost/healthz'] },
  initialDelaySeconds: 15,
  periodSeconds: 5,
};

/** The multus dynamic networks controller: hot-plugs interfaces into running pods (needs multus). */
export const multusDynamicNetworks: Component = optional('multusDynamicNetworks', (spec, ctx) => {
  const ns = ctx.namespace;
  const criSocket = spec.multusDynamicNetworks?.hostCRISocketPath ?? '/run/crio/crio.sock';
  const config = { criSocketPath: `/host${criSocket}`, multusSocketPath: `/host${MULTUS_SOCKET}` };
  const labels = { tier: 'node', app: NAME, name: NAME };
  return [
    clusterRoleBinding(NAME, NAME, { name: NAME, namespace: ns }),
    clusterRole(NAME, [
      {
        apiGroups: ['k8s.cni.cncf.io'],
        resources: ['network-attachment-definitions'],
        verbs: ['get', 'list', 'watch'],
      },
      { apiGroups: [''], resources: ['pods', 'pods/status'], verbs: ['get', 'list', 'update', 'watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ]),
    configMap(
      `${NAME}-config`,
      ns,
      { 'dynamic-networks-config.json': `${JSON.stringify(config, null, 2)}\n` },
      {
        tier: 'node',
        app: 'multus-dynamic-networks-controller',
      },
    ),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(`${NAME}-ds`, ns, labels),
      spec: {
        selector: { matchLabels: { name: NAME } },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: NAME,
            terminationGracePeriodSeconds: 10,
            ...placementFields(ctx.workloads),
            containers: [
              {
                name: NAME,
                image: ctx.images.multusDynamicNetworks,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/dynamic-networks-controller'],
                args: ['-config=/etc/dynamic-networks-controller/dynamic-networks-config.json', '-v=5'],
                env: [fieldEnv('NODE_NAME', 'spec.nodeName')],
                livenessProbe: socketProbe,
                readinessProbe: socketProbe,
                resources: requests('100m', '50Mi'),
                securityContext: { privileged: true },
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [
                  {
                    name: `${NAME}-config-dir`,
                    mountPath: '/etc/dynamic-networks-controller/',
                    readOnly: true,
                  },
                  { name: 'multus-server-socket', mountPath: `/host${MULTUS_SOCKET}` },
                  { name: 'cri-socket', mountPath: `/host${criSocket}` },
                ],
              },
            ],
            volumes: [
              {
                name: `${NAME}-config-dir`,
                configMap: {
                  name: `${NAME}-config`,
                  items: [{ key: 'dynamic-networks-config.json', path: 'dynamic-networks-config.json' }],
                },
              },
              hostPath('multus-server-socket', MULTUS_SOCKET, 'Socket'),
              hostPath('cri-socket', criSocket, 'Socket'),
            ],
          },
        },
      },
    },
    serviceAccount(NAME, ns),
  ];
});
