import type { KubeObject } from '@stackops/lib-common/client';
import { toGoCipherNames } from '../../network/tls-profile.js';
import {
  ALLOW_CLUSTER_SERVICES,
  clusterRole,
  clusterRoleBinding,
  httpProbe,
  ingressPolicy,
  looseCrd,
  meta,
  placementFields,
  requests,
  restrictedContainer,
} from '../builders.js';
import { optional } from './component.js';

const PREFIX = 'kubevirt-ipam-controller';
const SA = `${PREFIX}-manager`;
const SERVICE = `${PREFIX}-webhook-service`;
const CERTIFICATE = `${PREFIX}-serving-cert`;
const ISSUER = `${PREFIX}-selfsigned-issuer`;
const CERT_SECRET = 'webhook-server-cert';
const CERT_DIR = '/tmp/k8s-webhook-server/serving-certs';
const APP = { app: 'ipam-virt-workloads' };
const SELECTOR = { ...APP, 'control-plane': 'manager' };

const labelled = (obj: KubeObject): KubeObject => ({
  ...obj,
  metadata: { ...obj.metadata, labels: { ...APP, ...obj.metadata.labels } },
});

/** cert-manager issues the webhook's serving certificate and injects its CA into the webhook. */
const certificates = (ns: string): KubeObject[] => [
  {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: meta(CERTIFICATE, ns),
    spec: {
      dnsNames: [`${SERVICE}.${ns}.svc`, `${SERVICE}.${ns}.svc.cluster.local`],
      issuerRef: { kind: 'Issuer', name: ISSUER },
      secretName: CERT_SECRET,
    },
  },
  { apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: meta(ISSUER, ns), spec: { selfSigned: {} } },
];

/**
 * kubevirt-ipam-controller: persistent IPs for VMs through IPAMClaims, with a pod webhook on
 * virt-launcher pods. Its serving certificate comes from cert-manager when cert-manager is installed;
 * otherwise the `webhook-server-cert` Secret has to be provided.
 */
export const kubevirtIpamController = optional('kubevirtIpamController', (spec, ctx) => {
  const ns = ctx.namespace;
  const nadNamespace = spec.kubevirtIpamController?.defaultNetworkNADNamespace ?? '';
  const ciphers = toGoCipherNames(ctx.tls.ciphers);
  const args = [
    '--leader-elect',
    `--certificates-dir=${CERT_DIR}`,
    ...(nadNamespace ? [`--default-network-nad-namespace=${nadNamespace}`] : []),
    `--tls-min-version=${ctx.tls.minTLSVersion}`,
    ...(ciphers.length ? [`--tls-cipher-suites=${ciphers.join(',')}`] : []),
  ];
  const rbacObjects: KubeObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(SA, ns) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta(`${PREFIX}-leader-election-role`, ns),
      rules: [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      ],
    },
    clusterRole(`${SA}-role`, [
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
      {
        apiGroups: ['kubevirt.io'],
        resources: ['virtualmachines', 'virtualmachineinstances'],
        verbs: ['get', 'list', 'watch'],
      },
      {
        apiGroups: ['kubevirt.io'],
        resources: ['virtualmachines/finalizers', 'virtualmachineinstances/finalizers'],
        verbs: ['update'],
      },
      {
        apiGroups: ['k8s.cni.cncf.io'],
        resources: ['ipamclaims', 'network-attachment-definitions'],
        verbs: ['get', 'list', 'watch'],
      },
      { apiGroups: ['k8s.cni.cncf.io'], resources: ['ipamclaims'], verbs: ['create', 'update'] },
    ]),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(`${PREFIX}-leader-election-rolebinding`, ns),
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Role',
        name: `${PREFIX}-leader-election-role`,
      },
      subjects: [{ kind: 'ServiceAccount', name: SA, namespace: ns }],
    },
    clusterRoleBinding(`${SA}-rolebinding`, `${SA}-role`, { name: SA, namespace: ns }),
  ];
  const objects: KubeObject[] = [
    ...rbacObjects,
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(SERVICE, ns),
      spec: { ports: [{ port: 443, protocol: 'TCP', targetPort: 9443 }], selector: SELECTOR },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta(SA, ns, SELECTOR),
      spec: {
        replicas: 2,
        selector: { matchLabels: SELECTOR },
        template: {
          metadata: {
            labels: { ...SELECTOR, ...ALLOW_CLUSTER_SERVICES },
            annotations: { 'kubectl.kubernetes.io/default-container': 'manager' },
          },
          spec: {
            serviceAccountName: SA,
            priorityClassName: 'system-cluster-critical',
            terminationGracePeriodSeconds: 10,
            securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
            ...placementFields(ctx.infra),
            containers: [
              {
                name: 'manager',
                image: ctx.images.kubevirtIpamController,
                imagePullPolicy: ctx.imagePullPolicy,
                command: ['/manager'],
                args,
                env: [{ name: 'LOG_LEVEL', value: '0' }],
                ports: [{ name: 'webhook-server', containerPort: 9443, protocol: 'TCP' }],
                livenessProbe: httpProbe('/healthz', 8081, 15, 20),
                readinessProbe: httpProbe('/readyz', 8081, 5, 10),
                resources: requests('10m', '128Mi'),
                securityContext: restrictedContainer,
                terminationMessagePolicy: 'FallbackToLogsOnError',
                volumeMounts: [{ name: 'cert', mountPath: CERT_DIR, readOnly: true }],
              },
            ],
            volumes: [{ name: 'cert', secret: { secretName: CERT_SECRET, defaultMode: 420 } }],
          },
        },
      },
    },
    ...(ctx.certManagerAvailable ? certificates(ns) : []),
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: {
        name: `${PREFIX}-mutating-webhook-configuration`,
        ...(ctx.certManagerAvailable
          ? { annotations: { 'cert-manager.io/inject-ca-from': `${ns}/${CERTIFICATE}` } }
          : {}),
      },
      webhooks: [
        {
          name: 'ipam-claims.k8s.cni.cncf.io',
          admissionReviewVersions: ['v1'],
          clientConfig: { service: { name: SERVICE, namespace: ns, path: '/mutate-v1-pod' } },
          failurePolicy: 'Fail',
          sideEffects: 'None',
          // Only VM launcher pods go through the webhook.
          objectSelector: { matchLabels: { 'kubevirt.io': 'virt-launcher' } },
          rules: [
            { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] },
          ],
        },
      ],
    },
    ingressPolicy(`${PREFIX}-allow-ingress-to-ipam-ext-webhook`, ns, { matchLabels: APP }, [
      { port: 9443, protocol: 'TCP' },
    ]),
  ];
  return [
    looseCrd({
      group: 'k8s.cni.cncf.io',
      kind: 'IPAMClaim',
      plural: 'ipamclaims',
      singular: 'ipamclaim',
      scope: 'Namespaced',
      versions: [{ name: 'v1alpha1', storage: true, status: true }],
    }),
    ...objects.map(labelled),
  ];
});
