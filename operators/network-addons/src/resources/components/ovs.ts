import {
  clusterRole,
  clusterRoleBinding,
  fieldEnv,
  meta,
  placementFields,
  requests,
  serviceAccount,
} from '../builders.js';
import { optional } from './component.js';

const NAME = 'ovs-cni-amd64';
const MARKER = 'ovs-cni-marker';
const BINARIES = ['ovs', 'ovs-mirror-producer', 'ovs-mirror-consumer'];

/** Open vSwitch CNI: installs the plugin binaries, and the marker publishes OVS bridges as node resources. */
export const ovs = optional('ovs', (_spec, ctx) => {
  const ns = ctx.namespace;
  const labels = { tier: 'node', app: 'ovs-cni' };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(NAME, ns, labels),
      spec: {
        selector: { matchLabels: { app: 'ovs-cni' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
        template: {
          metadata: {
            labels,
            annotations: { description: 'Attaches pods and VMs to Open vSwitch bridges of the node' },
          },
          spec: {
            serviceAccountName: MARKER,
            hostNetwork: true,
            priorityClassName: 'system-node-critical',
            ...placementFields(ctx.workloads),
            initContainers: [
              {
                name: 'ovs-cni-plugin',
                image: ctx.images.ovsCni,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/bin/sh', '-c'],
                args: [BINARIES.map((b) => `cp /${b} /host/opt/cni/bin/${b}`).join(' && ')],
                resources: requests('10m', '15Mi'),
                securityContext: { privileged: true },
                volumeMounts: [{ name: 'cnibin', mountPath: '/host/opt/cni/bin' }],
              },
            ],
            containers: [
              {
                name: MARKER,
                image: ctx.images.ovsCni,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/marker'],
                args: [
                  '-v',
                  '3',
                  '-logtostderr',
                  '-node-name',
                  '$(NODE_NAME)',
                  '-ovs-socket',
                  'unix:/host/var/run/openvswitch/db.sock',
                  '-healthcheck-interval=60',
                ],
                env: [fieldEnv('NODE_NAME', 'spec.nodeName')],
                livenessProbe: {
                  // The marker touches /tmp/healthy on every successful OVS health check.
                  exec: { command: ['sh', '-c', 'find /tmp/healthy -mmin -2 | grep -q /tmp/healthy'] },
                  initialDelaySeconds: 60,
                  periodSeconds: 60,
                },
                resources: requests('10m', '10Mi'),
                securityContext: { privileged: true },
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [{ name: 'ovs-var-run', mountPath: '/host/var/run/openvswitch' }],
              },
            ],
            volumes: [
              { name: 'cnibin', hostPath: { path: ctx.cniBinDir } },
              { name: 'ovs-var-run', hostPath: { path: '/var/run/openvswitch' } },
            ],
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
