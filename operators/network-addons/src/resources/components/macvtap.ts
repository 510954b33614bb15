import { DEFAULT_MACVTAP_DEVICE_PLUGIN_CONFIG } from '../../api/constants.js';
import { configMap, meta, placementFields, requests, serviceAccount } from '../builders.js';
import { optional } from './component.js';

const NAME = 'macvtap-cni';

/**
 * macvtap CNI and device plugin. The default device-plugin ConfigMap is always rendered; the
 * DaemonSet reads the one `devicePluginConfig` names, which the user provides when it is another.
 */
export const macvtap = optional('macvtap', (spec, ctx) => {
  const ns = ctx.namespace;
  const configName = spec.macvtap?.devicePluginConfig || DEFAULT_MACVTAP_DEVICE_PLUGIN_CONFIG;
  const privileged = { privileged: true };
  return [
    serviceAccount(NAME, ns),
    configMap(DEFAULT_MACVTAP_DEVICE_PLUGIN_CONFIG, ns, { DP_MACVTAP_CONF: '[]' }),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: meta(NAME, ns),
      spec: {
        selector: { matchLabels: { name: NAME } },
        template: {
          metadata: { labels: { name: NAME } },
          spec: {
            serviceAccountName: NAME,
            hostNetwork: true,
            hostPID: true,
            priorityClassName: 'system-node-critical',
            ...placementFields(ctx.workloads),
            initContainers: [
              {
                name: 'install-cni',
                image: ctx.images.macvtapCni,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['cp', '/macvtap-cni', '/host/opt/cni/bin/macvtap'],
                resources: requests('10m', '15Mi'),
                securityContext: privileged,
                volumeMounts: [
                  { name: 'cni', mountPath: '/host/opt/cni/bin', mountPropagation: 'Bidirectional' },
                ],
              },
            ],
            containers: [
              {
                name: NAME,
                image: ctx.images.macvtapCni,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/macvtap-deviceplugin', '-v', '3', '-logtostderr'],
                envFrom: [{ configMapRef: { name: configName } }],
                resources: requests('60m', '30Mi'),
                securityContext: privileged,
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [{ name: 'deviceplugin', mountPath: '/var/lib/kubelet/device-plugins' }],
              },
            ],
            volumes: [
              { name: 'deviceplugin', hostPath: { path: '/var/lib/kubelet/device-plugins' } },
              { name: 'cni', hostPath: { path: ctx.cniBinDir } },
            ],
          },
        },
      },
    },
  ];
});
