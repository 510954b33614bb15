import {
  ALLOW_CLUSTER_SERVICES,
  clusterRole,
  clusterRoleBinding,
  configMap,
  configMapEnv,
  httpProbe,
  ingressPolicy,
  meta,
  placementFields,
  requests,
  restrictedContainer,
  serviceAccount,
} from '../builders.js';
import { optional } from './component.js';

const NAME = 'secondary-dns';
const SA = 'secondary';
const DNS_PORT = 5353;

/** CoreDNS serving the zone files the status monitor writes into the shared /zones volume. */
const corefile = [
  `.:${DNS_PORT} {`,
  '    auto {',
  '      directory /zones db\\.(.*) {1}',
  '      reload 45s',
  '    }',
  '    reload',
  '    log',
  '    health :8082',
  '    ready :8083',
  '}',
  '',
].join('\n');

/** KubeSecondaryDNS: DNS names for the secondary interfaces of VMs (CoreDNS + a status monitor). */
export const kubeSecondaryDNS = optional('kubeSecondaryDNS', (spec, ctx) => {
  const ns = ctx.namespace;
  const selector = { 'k8s-app': NAME };
  return [
    configMap(NAME, ns, {
      DOMAIN: spec.kubeSecondaryDNS?.domain ?? '',
      NAME_SERVER_IP: spec.kubeSecondaryDNS?.nameServerIP ?? '',
      Corefile: corefile,
    }),
    clusterRole(SA, [
      { apiGroups: ['kubevirt.io'], resources: ['virtualmachineinstances'], verbs: ['get', 'list', 'watch'] },
    ]),
    clusterRoleBinding(SA, SA, { name: SA, namespace: ns }),
    serviceAccount(SA, ns),
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(NAME, ns, selector),
      spec: {
        replicas: 1,
        selector: { matchLabels: selector },
        template: {
          metadata: {
            labels: { ...selector, ...ALLOW_CLUSTER_SERVICES },
            annotations: { 'kubectl.kubernetes.io/default-container': 'status-monitor' },
          },
          spec: {
            serviceAccountName: SA,
            priorityClassName: 'system-cluster-critical',
            restartPolicy: 'Always',
            terminationGracePeriodSeconds: 1,
            securityContext: {
              runAsUser: 1000,
              runAsNonRoot: true,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            ...placementFields(ctx.infra),
            containers: [
              {
                name: NAME,
                image: ctx.images.coreDns,
                imagePullPolicy: ctx.imagePullPolicy,
                args: ['-conf', '/etc/coredns/Corefile'],
                securityContext: restrictedContainer,
                ports: [
                  { name: 'dns', containerPort: DNS_PORT, protocol: 'UDP' },
                  { name: 'healthport', containerPort: 8082, protocol: 'TCP' },
                  { name: 'readyport', containerPort: 8083, protocol: 'TCP' },
                ],
                resources: requests('100m', '70Mi'),
                readinessProbe: httpProbe('/ready', 'readyport', 5, 10),
                livenessProbe: httpProbe('/health', 'healthport', 15, 20),
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [
                  { name: 'config-volume', mountPath: '/etc/coredns', readOnly: true },
                  { name: 'secdns-zones', mountPath: '/zones', readOnly: true },
                ],
              },
              {
                name: 'status-monitor',
                image: ctx.images.kubeSecondaryDns,
                imagePullPolicy: ctx.imagePullPolicy,
                securityContext: restrictedContainer,
                env: [
                  configMapEnv('DOMAIN', NAME, 'DOMAIN'),
                  configMapEnv('NAME_SERVER_IP', NAME, 'NAME_SERVER_IP'),
                ],
                ports: [{ name: 'healthport', containerPort: 8081, protocol: 'TCP' }],
                resources: requests('100m', '70Mi'),
                readinessProbe: httpProbe('/readyz', 'healthport', 5, 10),
                livenessProbe: httpProbe('/healthz', 'healthport', 15, 20),
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [{ name: 'secdns-zones', mountPath: '/zones' }],
              },
            ],
            volumes: [
              {
                name: 'config-volume',
                configMap: { name: NAME, defaultMode: 420, items: [{ key: 'Corefile', path: 'Corefile' }] },
              },
              { name: 'secdns-zones', emptyDir: {} },
            ],
          },
        },
      },
    },
    ingressPolicy('allow-ingress-to-secondary-dns', ns, { matchLabels: selector }, [
      { protocol: 'UDP', port: DNS_PORT },
    ]),
  ];
});
