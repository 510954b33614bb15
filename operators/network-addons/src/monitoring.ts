import { gauge } from '@stackops/lib-common/metrics';
import type { Manager } from '@stackops/lib-common/runtime';
import { OPERATOR_CONFIG_NAME } from './api/constants.js';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from './api/kinds.js';
import { selectTlsSettings } from './network/tls-profile.js';

/** The singleton NetworkAddonsConfig from the cache, if there is one (and the informer runs). */
function singleton(manager: Manager): NetworkAddonsConfig | undefined {
  try {
    return manager.cache.get<NetworkAddonsConfig>(NetworkAddonsConfigKind, OPERATOR_CONFIG_NAME);
  } catch {
    return undefined; // not started yet, or a standby: nothing is known
  }
}

/** Upstream's "CR ready": the Available condition is True. */
export function cnaoCrReady(cr: NetworkAddonsConfig | undefined): number {
  return cr?.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ? 1 : 0;
}

/**
 * Upstream's two operator gauges, without labels as upstream exports them (Prometheus adds the
 * namespace and pod of the target), read from the cache when scraped: `kubevirt_cnao_cr_ready` 1
 * while the NetworkAddonsConfig is Available, `kubevirt_cnao_cr_kubemacpool_deployed` 1 while it
 * asks for KubeMacPool; both 0 without one. The chart's recording rules and alerts use them.
 */
export function registerCnaoMetrics(manager: Manager): void {
  gauge(
    {
      name: 'kubevirt_cnao_cr_ready',
      help: 'Whether the NetworkAddonsConfig is Available (1) or not (0)',
      collect() {
        this.set(cnaoCrReady(singleton(manager)));
      },
    },
    manager.registry,
  );
  gauge(
    {
      name: 'kubevirt_cnao_cr_kubemacpool_deployed',
      help: 'Whether the NetworkAddonsConfig deploys KubeMacPool (1) or not (0)',
      collect() {
        this.set(singleton(manager)?.spec?.kubeMacPool ? 1 : 0);
      },
    },
    manager.registry,
  );
}

/**
 * Secure metrics follow the NetworkAddonsConfig's tlsSecurityProfile, as upstream's do (no profile:
 * Modern); until one is reconciled, and for a Custom profile without minTLSVersion, the operator's
 * own `--metrics-tls-min-version` applies.
 */
export function followTlsProfile(manager: Manager, cr: NetworkAddonsConfig): void {
  const configured = manager.configuredMetricsTls;
  const { minTLSVersion, ciphers } = selectTlsSettings(cr.spec?.tlsSecurityProfile);
  manager.setMetricsTls({
    minVersion: minTLSVersion || configured.minVersion,
    ...(ciphers.length > 0 ? { ciphers } : {}),
  });
}
