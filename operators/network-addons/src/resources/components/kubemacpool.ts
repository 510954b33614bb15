import type { KubeObject } from '@stackops/lib-common/client';
import { effectiveMacRange } from '../../network/kubemacpool-range.js';
import { toGoCipherNames } from '../../network/tls-profile.js';
import {
  ALLOW_CLUSTER_SERVICES,
  clusterRole,
  clusterRoleBinding,
  configMap,
  configMapEnv,
  fieldEnv,
  ingressPolicy,
  meta,
  placementFields,
  requests,
  restrictedContainer,
  serviceAccount,
} from '../builders.js';
import type { RenderContext } from '../render-context.js';
import { optional } from './component.js';

const SA = 'kubemacpool-sa';
const RANGE_CONFIG = 'kubemacpool-mac-range-config';
const SERVICE = 'kubemacpool-service';
const MANAGER_LABELS = { 'control-plane': 'mac-controller-manager', 'controller-tools.k8s.io': '1.0' };
const CERT_MANAGER_LABELS = { 'control-plane': 'cert-manager', 'controller-tools.k8s.io': '1.0' };

const podSecurity = { runAsNonRoot: true, runAsUser: 107, seccompProfile: { type: 'RuntimeDefault' } };

const labelEnv = (name: string, label: string) => fieldEnv(name, `metadata.labels['${label}']`);

const httpsProbe = (path: string, initialDelaySeconds: number, periodSeconds: number) => ({
  httpGet: {
    path,
    port: 'webhook-server',
    scheme: 'HTTPS',
    httpHeaders: [{ name: 'Content-Type', value: 'application/json' }],
  },
  initialDelaySeconds,
  periodSeconds,
});

/** Only the namespaces/objects that opt in are mutated; run-level 0/1 namespaces never are. */
const excludeRunLevels = [
  { key: 'runlevel', operator: 'NotIn', values: ['0', '1'] },
  { key: 'openshift.io/run-level', operator: 'NotIn', values: ['0', '1'] },
];

function mutatingWebhook(ns: string): KubeObject {
  const webhook = (name: string, path: string, selector: object, rule: object) => ({
    name,
    admissionReviewVersions: ['v1', 'v1beta1'],
    clientConfig: { service: { name: SERVICE, namespace: ns, path } },
    failurePolicy: 'Fail',
    sideEffects: 'NoneOnDryRun',
    namespaceSelector: { matchExpressions: [...excludeRunLevels, selector] },
    rules: [rule],
  });
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: meta('kubemacpool-mutator'),
    webhooks: [
      webhook(
        'mutatepods.kubemacpool.io',
        '/mutate-pods',
        { key: 'mutatepods.kubemacpool.io', operator: 'In', values: ['allocate'] },
        { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] },
      ),
      webhook(
        'mutatevirtualmachines.kubemacpool.io',
        '/mutate-virtualmachines',
        { key: 'mutatevirtualmachines.kubemacpool.io', operator: 'NotIn', values: ['ignore'] },
        {
          apiGroups: ['kubevirt.io'],
          apiVersions: ['v1'],
          operations: ['CREATE', 'UPDATE'],
          resources: ['virtualmachines'],
        },
      ),
    ],
  };
}

function tlsArgs(ctx: RenderContext): string[] {
  const ciphers = toGoCipherNames(ctx.tls.ciphers);
  return [
    `--tls-min-version=${ctx.tls.minTLSVersion}`,
    ...(ciphers.length ? [`--tls-cipher-suites=${ciphers.join(',')}`] : []),
  ];
}

/** Both KubeMacPool Deployments run the same binary in the same kind of pod; only the container differs. */
function managerDeployment(
  ctx: RenderContext,
  name: string,
  labels: Record<string, string>,
  annotations: Record<string, string> | undefined,
  container: Record<string, unknown>,
  volumes?: object[],
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: meta(name, ctx.namespace, labels),
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      strategy: { type: 'Recreate' },
      template: {
        metadata: {
          labels: { app: 'kubemacpool', ...labels, ...ALLOW_CLUSTER_SERVICES },
          ...(annotations ? { annotations } : {}),
        },
        spec: {
          serviceAccountName: SA,
          priorityClassName: 'system-cluster-critical',
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 5,
          securityContext: podSecurity,
          ...placementFields(ctx.infra),
          containers: [
            {
              name: 'manager',
              image: ctx.images.kubeMacPool,
              imagePullPolicy: ctx.imagePullPolicy,
              command: ['/manager'],
              ...container,
              securityContext: restrictedContainer,
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          ...(volumes ? { volumes } : {}),
        },
      },
    },
  };
}

const rbac = (ns: string): KubeObject[] => [
  serviceAccount(SA, ns),
  clusterRole('kubemacpool-manager-role', [
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['validatingwebhookconfigurations'],
      verbs: ['list', 'watch'],
    },
    {
      apiGroups: ['admissionregistration.k8s.io'],
      resources: ['mutatingwebhookconfigurations'],
      verbs: ['get', 'list', 'update', 'watch'],
    },
    { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch', 'create', 'update'] },
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: ['kubevirt.io'], resources: ['virtualmachines'], verbs: ['get', 'list', 'watch', 'update'] },
    { apiGroups: ['kubevirt.io'], resources: ['virtualmachineinstances'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'delete', 'list', 'watch'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
  ]),
  clusterRoleBinding('kubemacpool-manager-rolebinding', 'kubemacpool-manager-role', {
    name: SA,
    namespace: ns,
  }),
];

/**
 * KubeMacPool: the MAC range ConfigMap, the webhook that assigns MACs to pods and VMs, the MAC
 * controller manager, and the cert manager that rotates the webhook certificates on the
 * selfSignConfiguration schedule.
 */
export const kubeMacPool = optional('kubeMacPool', (spec, ctx) => {
  const ns = ctx.namespace;
  const range = effectiveMacRange({
    rangeStart: spec.kubeMacPool?.rangeStart ?? '',
    rangeEnd: spec.kubeMacPool?.rangeEnd ?? '',
  });
  const rotation = spec.selfSignConfiguration;
  return [
    ...rbac(ns),
    configMap(RANGE_CONFIG, ns, { RANGE_START: range.rangeStart, RANGE_END: range.rangeEnd }, MANAGER_LABELS),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(SERVICE, ns),
      spec: {
        ports: [{ port: 443, targetPort: 8000 }],
        selector: { 'control-plane': 'mac-controller-manager' },
      },
    },
    managerDeployment(ctx, 'kubemacpool-cert-manager', CERT_MANAGER_LABELS, undefined, {
      args: ['--v=production'],
      env: [
        { name: 'RUN_CERT_MANAGER', value: '' },
        fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
        fieldEnv('POD_NAME', 'metadata.name'),
        labelEnv('COMPONENT', 'app.kubernetes.io/component'),
        labelEnv('PART_OF', 'app.kubernetes.io/part-of'),
        labelEnv('VERSION', 'app.kubernetes.io/version'),
        labelEnv('MANAGED_BY', 'app.kubernetes.io/managed-by'),
        { name: 'CA_ROTATE_INTERVAL', value: rotation.caRotateInterval },
        { name: 'CA_OVERLAP_INTERVAL', value: rotation.caOverlapInterval },
        { name: 'CERT_ROTATE_INTERVAL', value: rotation.certRotateInterval },
        { name: 'CERT_OVERLAP_INTERVAL', value: rotation.certOverlapInterval },
      ],
      resources: requests('30m', '30Mi'),
    }),
    managerDeployment(
      ctx,
      'kubemacpool-mac-controller-manager',
      MANAGER_LABELS,
      { description: 'KubeMacPool assigns MAC addresses to pods and VMs' },
      {
        args: ['--v=production', '--wait-time=300', ...tlsArgs(ctx)],
        env: [
          fieldEnv('POD_NAMESPACE', 'metadata.namespace'),
          fieldEnv('POD_NAME', 'metadata.name'),
          configMapEnv('RANGE_START', RANGE_CONFIG, 'RANGE_START'),
          configMapEnv('RANGE_END', RANGE_CONFIG, 'RANGE_END'),
          { name: 'KUBEVIRT_CLIENT_GO_SCHEME_REGISTRATION_VERSION', value: 'v1' },
        ],
        ports: [
          { name: 'webhook-server', containerPort: 8000, protocol: 'TCP' },
          { name: 'metrics', containerPort: 8443, protocol: 'TCP' },
        ],
        livenessProbe: httpsProbe('/healthz', 15, 20),
        readinessProbe: httpsProbe('/readyz', 10, 10),
        resources: requests('100m', '100Mi'),
        volumeMounts: [
          { name: 'tls-key-pair', mountPath: '/tmp/k8s-webhook-server/serving-certs/', readOnly: true },
        ],
      },
      [{ name: 'tls-key-pair', secret: { secretName: SERVICE } }],
    ),
    ingressPolicy(
      'kubemacpool-allow-ingress-to-metrics-endpoint',
      ns,
      { matchLabels: { 'control-plane': 'mac-controller-manager' } },
      [{ port: 8443, protocol: 'TCP' }],
    ),
    ingressPolicy(
      'kubemacpool-allow-ingress-to-webhook',
      ns,
      { matchLabels: { 'control-plane': 'mac-controller-manager' } },
      [{ port: 8000, protocol: 'TCP' }],
    ),
    mutatingWebhook(ns),
  ];
});
