import {
  clusterRole,
  clusterRoleBinding,
  fieldEnv,
  httpProbe,
  meta,
  placementFields,
  requests,
  serviceAccount,
} from '../builders.js';
import { type Component, optional } from './component.js';

const MARKER = 'bridge-marker';
const PLUGIN = 'kube-cni-linux-bridge-plugin';
const PLUGINS_IN_IMAGE = '/usr/src/github.com/containernetworking/plugins/bin';

/**
 * Installs `cnv-bridge` and `cnv-tuning` into the host's CNI bin dir; `bridge`/`tuning` become links
 * to them only when the host has none of its own. Then idles, so the pod shows the node is done.
 */
const installScript = (hostBinDir: string) =>
  [
    'set -e',
    'for plugin in bridge tuning; do',
    `  cp --remove-destination "${PLUGINS_IN_IMAGE}/$plugin" "/opt/cni/bin/cnv-$plugin"`,
    `  if [ ! -e "/opt/cni/bin/$plugin" ]; then ln -sf "${hostBinDir}/cnv-$plugin" "/opt/cni/bin/$plugin"; fi`,
    'done',
    'echo "bridge and tuning CNI plugins installed"',
    'exec sleep infinity',
  ].join('\n');

/** Linux bridge CNI plugin on every node, and the bridge marker exposing node bridges as resources. */
export const linuxBridge: Component = optional('linuxBridge', (_spec, ctx) => {
  const ns = ctx.namespace;
  const placement = placementFields(ctx.workloads);
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(PLUGIN, ns, { tier: 'node', app: 'cni-linux-bridge-plugin' }),
      spec: {
        selector: { matchLabels: { name: PLUGIN } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
        template: {
          metadata: {
            labels: { name: PLUGIN, tier: 'node', app: 'cni-plugins' },
            annotations: { description: 'Installs the bridge and tuning CNI plugins on the node' },
          },
          spec: {
            ...placement,
            priorityClassName: 'system-cluster-critical',
            containers: [
              {
                name: 'cni-plugins',
                image: ctx.images.linuxBridge,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/bin/bash', '-ce', installScript(ctx.cniBinDir)],
                resources: requests('10m', '15Mi'),
                securityContext: { privileged: true, readOnlyRootFilesystem: true },
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [
                  { name: 'cnibin', mountPath: '/opt/cni/bin' },
                  { name: 'tmp', mountPath: '/tmp' },
                ],
              },
            ],
            volumes: [
              { name: 'cnibin', hostPath: { path: ctx.cniBinDir } },
              { name: 'tmp', emptyDir: {} },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(MARKER, ns, { tier: 'node', app: MARKER }),
      spec: {
        selector: { matchLabels: { name: MARKER } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
        template: {
          metadata: {
            labels: { tier: 'node', app: MARKER, name: MARKER },
            annotations: { description: 'Publishes the Linux bridges of the node as node resources' },
          },
          spec: {
            serviceAccountName: MARKER,
            hostNetwork: true,
            ...placement,
            priorityClassName: 'system-node-critical',
            securityContext: { runAsNonRoot: true, runAsUser: 1001 },
            containers: [
              {
                name: MARKER,
                image: ctx.images.linuxBridgeMarker,
                imagePullPolicy: ctx.imagePullPolicy,
                args: ['-node-name', '$(NODE_NAME)'],
                env: [fieldEnv('NODE_NAME', 'spec.nodeName')],
                ports: [{ name: 'healthport', containerPort: 8081, protocol: 'TCP' }],
                readinessProbe: httpProbe('/healthz', 'healthport', 5, 10),
                livenessProbe: httpProbe('/healthz', 'healthport', 10, 20),
                resources: requests('10m', '15Mi'),
                securityContext: { readOnlyRootFilesystem: true },
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
              },
            ],
            volumes: [{ name: 'tmp', emptyDir: {} }],
          },
        },
      },
    },
    clusterRole(`${MARKER}-cr`, [
      { apiGroups: [''], resources: ['nodes', 'nodes/status'], verbs: ['get', 'update', 'patch'] },
    ]),
    clusterRoleBinding(`${MARKER}-crb`, `${MARKER}-cr`, { name: MARKER, namespace: ns }),
    serviceAccount(MARKER, ns),
  ];
});
