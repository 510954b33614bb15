import { Kinds } from '@stackops/lib-common/client';
import { DEX_PORT } from '../api/constants.js';
import type { AuthService } from '../api/services.js';
import { instanceLabels } from '../resources/labels.js';
import {
  configHash,
  configSecret,
  type DesiredObject,
  nodePort,
  nodePortService,
  nodeSelectorOf,
  serviceDeployment,
  tcpPort,
} from '../resources/objects.js';
import { clientSecretEnv, DEX_TLS_DIR, renderDexConfig } from '../templates/dex-config.js';
import type { RenderContext, StringifyYaml } from './context.js';

const authName = (cluster: string): string => `auth-${cluster}`;

const CONFIG_DIR = '/etc/dex/cfg';

/** The YAML writer the rendering step loaded because the spec has an auth service. */
function yamlWriter(ctx: RenderContext): StringifyYaml {
  if (!ctx.stringifyYaml) throw new Error('the YAML writer was not loaded for an auth service');
  return ctx.stringifyYaml;
}

/** The issuer when the spec names none: Dex's in-cluster address, under /dex. */
function defaultIssuer(ctx: RenderContext, service: AuthService): string {
  const scheme = service.tlsSecret ? 'https' : 'http';
  return `${scheme}://${authName(ctx.cluster.name)}.${ctx.cluster.namespace}.svc:${DEX_PORT}/dex`;
}

/**
 * The OIDC provider of the tenant cluster: Dex with its config in a Secret, a Deployment and a
 * NodePort Service. Client secrets reach Dex as environment variables from their own Secrets;
 * `envFromSecret` adds variables for connectors' $REFERENCES.
 */
export function renderAuth(ctx: RenderContext, service: AuthService): DesiredObject[] {
  const name = authName(ctx.cluster.name);
  const { namespace } = ctx.cluster;
  const labels = instanceLabels('auth', 'dex', name);
  const staticClients = service.staticClients ?? [];
  const config = renderDexConfig(
    {
      issuer: service.issuer || defaultIssuer(ctx, service),
      port: DEX_PORT,
      tls: Boolean(service.tlsSecret),
      staticClients,
      connectors: service.connectors ?? [],
    },
    yamlWriter(ctx),
  );
  const env = staticClients.flatMap((c, i) =>
    c.secretRef
      ? [
          {
            name: clientSecretEnv(i),
            valueFrom: { secretKeyRef: { name: c.secretRef.name, key: c.secretRef.key } },
          },
        ]
      : [],
  );
  const volumes: Record<string, unknown>[] = [{ name: 'config', secret: { secretName: name } }];
  const mounts: Record<string, unknown>[] = [{ name: 'config', mountPath: CONFIG_DIR, readOnly: true }];
  if (service.tlsSecret) {
    volumes.push({ name: 'tls', secret: { secretName: service.tlsSecret } });
    mounts.push({ name: 'tls', mountPath: DEX_TLS_DIR, readOnly: true });
  }
  const secret = configSecret(name, namespace, labels, { 'config.yaml': config });
  const deployment = serviceDeployment(name, namespace, labels, configHash(config, env), {
    ...nodeSelectorOf(service.nodeLabels),
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
    containers: [
      {
        name: 'dex',
        image: service.image || ctx.images.auth,
        imagePullPolicy: 'IfNotPresent',
        args: ['dex', 'serve', `${CONFIG_DIR}/config.yaml`],
        ports: [tcpPort('http', DEX_PORT)],
        env,
        ...(service.envFromSecret ? { envFrom: [{ secretRef: { name: service.envFromSecret } }] } : {}),
        readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 10 },
        securityContext: {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        },
        volumeMounts: mounts,
      },
    ],
    volumes,
  });
  const svc = nodePortService(name, namespace, labels, [nodePort('http', DEX_PORT, service.nodePort)]);
  return [
    { kind: Kinds.Secret, object: secret },
    { kind: Kinds.Deployment, object: deployment },
    { kind: Kinds.Service, object: svc },
  ];
}
