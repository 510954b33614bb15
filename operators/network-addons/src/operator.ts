import { isNotFound, type KubeClient } from '@stackops/lib-common/resources';
import {
  type Controller,
  generationChanged,
  labelsChanged,
  type Manager,
  or,
} from '@stackops/lib-common/runtime';
import { type NetworkAddonsConfig, NetworkAddonsConfigKind } from './api/kinds.js';
import type { OperatorEnv } from './config/operator-env.js';
import { ManagedObjects } from './controllers/managed-objects.js';
import { NetworkAddonsConfigReconciler } from './controllers/network-addons-config-reconciler.js';
import type { RandomBytes } from './network/kubemacpool-range.js';
import { CERT_MANAGER_KINDS, CertificateKind, RENDERED_KINDS } from './render/kinds.js';

export const OPERATOR_NAME = 'network-addons-operator';
/** The SSA field manager every write of this operator carries. */
export const FIELD_MANAGER = `stackops-${OPERATOR_NAME}`;

export interface NetworkAddonsOperatorOptions {
  env: OperatorEnv;
  random?: RandomBytes;
  now?: () => Date;
  resyncMs?: number;
}

/** Whether cert-manager's API is served (then the ipam controller gets a Certificate and an Issuer). */
export async function certManagerServed(client: KubeClient): Promise<boolean> {
  try {
    await client.list(CertificateKind, { limit: 1 });
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}

/** The NetworkAddonsConfig controller on a manager, with the cache of the objects it renders. */
export class NetworkAddonsOperator {
  readonly controller: Controller<NetworkAddonsConfig>;
  readonly reconciler: NetworkAddonsConfigReconciler;

  private constructor(
    readonly manager: Manager,
    readonly objects: ManagedObjects,
    opts: NetworkAddonsOperatorOptions,
    certManagerAvailable: boolean,
  ) {
    this.reconciler = new NetworkAddonsConfigReconciler({
      env: opts.env,
      objects,
      certManagerAvailable,
      ...(opts.random ? { random: opts.random } : {}),
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.resyncMs !== undefined ? { resyncMs: opts.resyncMs } : {}),
    });
    // Spec and label changes only: the operator's own status writes must not trigger it again.
    this.controller = manager
      .controller<NetworkAddonsConfig>({ for: NetworkAddonsConfigKind, name: 'networkaddonsconfig' })
      .withPredicates(or(generationChanged, labelsChanged))
      .reconcile(this.reconciler.reconcile);
  }

  static async create(manager: Manager, opts: NetworkAddonsOperatorOptions): Promise<NetworkAddonsOperator> {
    const certManager = await certManagerServed(manager.client);
    const kinds = [...RENDERED_KINDS, ...(certManager ? CERT_MANAGER_KINDS : [])];
    let operator: NetworkAddonsOperator | undefined;
    const objects = new ManagedObjects(
      manager.client,
      kinds,
      (owner) => operator?.controller.enqueue(owner),
      manager.log,
    );
    operator = new NetworkAddonsOperator(manager, objects, opts, certManager);
    return operator;
  }

  async start(): Promise<void> {
    this.objects.start();
    await this.manager.start();
  }

  async stop(): Promise<void> {
    await this.manager.stop();
    await this.objects.stop();
  }
}
