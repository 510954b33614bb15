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
import { type Component, optional } from './component.js';

const NAME = 'multus';
const POD_LABEL = 'kube-multus-ds-amd64';

/** Multus thick plugin: the NetworkAttachmentDefinition CRD and the multus daemon on every node. */
export const multus: Component = optional('multus', (_spec, ctx) => {
  const ns = ctx.namespace;
  const daemonConfig = {
    chrootDir: '/hostroot',
    cniVersion: '0.3.1',
    logLevel: 'verbose',
    logToStderr: true,
    cniConfigDir: '/host/etc/cni/net.d',
    multusAutoconfigDir: '/host/etc/cni/net.d',
    multusConfigFile: 'auto',
    socketDir: '/host/run/multus/',
  };
  const privileged = { privileged: true };
  return [
    looseCrd({
      group: 'k8s.cni.cncf.io',
      kind: 'NetworkAttachmentDefinition',
      plural: 'network-attachment-definitions',
      singular: 'network-attachment-definition',
      shortNames: ['nad', 'net-attach-def'],
      scope: 'Namespaced',
      versions: [{ name: 'v1', storage: true }],
      specSchema: { type: 'object', properties: { config: { type: 'string' } } },
    }),
    clusterRole(NAME, [
      { apiGroups: ['k8s.cni.cncf.io'], resources: ['*'], verbs: ['*'] },
      { apiGroups: [''], resources: ['pods', 'pods/status'], verbs: ['get', 'list', 'update', 'watch'] },
      { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch', 'update'] },
    ]),
    clusterRoleBinding(NAME, NAME, { name: NAME, namespace: ns }),
    serviceAccount(NAME, ns),
    configMap(
      'multus-daemon-config',
      ns,
      { 'daemon-config.json': `${JSON.stringify(daemonConfig, null, 2)}\n` },
      {
        tier: 'node',
        app: NAME,
      },
    ),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(NAME, ns, { tier: 'node', app: NAME, name: NAME }),
      spec: {
        selector: { matchLabels: { name: POD_LABEL } },
        updateStrategy: { type: 'RollingUpdate' },
        template: {
          metadata: { labels: { tier: 'node', app: NAME, name: POD_LABEL } },
          spec: {
            hostNetwork: true,
            hostPID: true,
            serviceAccountName: NAME,
            priorityClassName: 'system-cluster-critical',
            terminationGracePeriodSeconds: 10,
            ...placementFields(ctx.workloads),
            initContainers: [
              {
                name: 'install-multus-binary',
                image: ctx.images.multus,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/usr/src/multus-cni/bin/install_multus', '-d', '/host/opt/cni/bin', '-t', 'thick'],
                resources: requests('10m', '15Mi'),
                securityContext: privileged,
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [
                  { name: 'cnibin', mountPath: '/host/opt/cni/bin', mountPropagation: 'Bidirectional' },
                ],
              },
            ],
            containers: [
              {
                name: 'kube-multus',
                image: ctx.images.multus,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/usr/src/multus-cni/bin/multus-daemon'],
                env: [fieldEnv('MULTUS_NODE_NAME', 'spec.nodeName')],
                resources: requests('10m', '15Mi'),
                securityContext: privileged,
                terminationMessagePolicy: 'FallbackToLogsOnError',
                lifecycle: {
                  // Leave no multus configuration behind on the node when the pod goes away.
                  preStop: {
                    exec: {
                      command: [
                        '/bin/sh',
                        '-c',
                        'rm -rf /host/etc/cni/net.d/00-multus.conf /host/var/lib/cni/*',
                      ],
                    },
                  },
                },
                volumeMounts: [
                  { name: 'cni', mountPath: '/host/etc/cni/net.d' },
                  // multus-daemon needs the CNI bin dir at the same path as on the host.
                  { name: 'cnibin', mountPath: ctx.cniBinDir },
                  { name: 'host-run', mountPath: '/host/run' },
                  { name: 'host-var-lib-cni-multus', mountPath: '/var/lib/cni/multus' },
                  {
                    name: 'host-var-lib-kubelet',
                    mountPath: '/var/lib/kubelet',
                    mountPropagation: 'HostToContainer',
                  },
                  { name: 'host-run-k8s-cni-cncf-io', mountPath: '/run/k8s.cni.cncf.io' },
                  { name: 'host-run-netns', mountPath: '/run/netns', mountPropagation: 'HostToContainer' },
                  { name: 'multus-daemon-config', mountPath: '/etc/cni/net.d/multus.d', readOnly: true },
                  { name: 'hostroot', mountPath: '/hostroot', mountPropagation: 'HostToContainer' },
                  { name: 'multus-conf-dir', mountPath: '/etc/cni/multus/net.d' },
                ],
              },
            ],
            volumes: [
              hostPath('cni', ctx.cniConfDir),
              hostPath('cnibin', ctx.cniBinDir),
              hostPath('hostroot', '/'),
              {
                name: 'multus-daemon-config',
                configMap: {
                  name: 'multus-daemon-config',
                  items: [{ key: 'daemon-config.json', path: 'daemon-config.json' }],
                },
              },
              hostPath('host-run', '/run'),
              hostPath('host-var-lib-cni-multus', '/var/lib/cni/multus'),
              hostPath('host-var-lib-kubelet', '/var/lib/kubelet'),
              hostPath('host-run-k8s-cni-cncf-io', '/run/k8s.cni.cncf.io'),
              hostPath('host-run-netns', '/run/netns/'),
              hostPath('multus-conf-dir', '/etc/cni/multus/net.d'),
            ],
          },
        },
      },
    },
  ];
});
