import type { DexConnector, DexStaticClient } from '../api/services.js';
import type { StringifyYaml } from '../services/context.js';

/** Where the Dex pod mounts its TLS key pair when the auth service has a tlsSecret. */
export const DEX_TLS_DIR = '/etc/dex/tls';

/** The environment variable that carries static client `index`'s secret (Dex's `secretEnv`). */
export const clientSecretEnv = (index: number): string => `SIP_DEX_CLIENT_${index}_SECRET`;

export interface DexConfigInput {
  issuer: string;
  port: number;
  tls: boolean;
  staticClients: readonly DexStaticClient[];
  connectors: readonly DexConnector[];
}

/**
 * Dex's config.yaml. Client secrets stay in their Secrets: the config names an environment
 * variable (`secretEnv`) that the Deployment fills from the Secret. Storage is in memory, so Dex
 * needs no CRDs or RBAC of its own; sessions and refresh tokens do not survive a restart.
 */
export function renderDexConfig(input: DexConfigInput, stringify: StringifyYaml): string {
  const listen = `0.0.0.0:${input.port}`;
  const config = {
    issuer: input.issuer,
    storage: { type: 'memory' },
    web: input.tls
      ? { https: listen, tlsCert: `${DEX_TLS_DIR}/tls.crt`, tlsKey: `${DEX_TLS_DIR}/tls.key` }
      : { http: listen },
    oauth2: { skipApprovalScreen: true },
    staticClients: input.staticClients.map((c, i) => ({
      id: c.id,
      name: c.name ?? c.id,
      redirectURIs: c.redirectURIs,
      ...(c.public ? { public: true } : { secretEnv: clientSecretEnv(i) }),
    })),
    connectors: input.connectors.map((c) => ({
      type: c.type,
      id: c.id,
      name: c.name,
      config: c.config ?? {},
    })),
  };
  return stringify(config, { lineWidth: 0 });
}
