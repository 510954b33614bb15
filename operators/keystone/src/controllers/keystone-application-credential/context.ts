import { Conditions, Reason, type Severity } from '@stackops/lib-common/conditions';
import type { Pass } from '@stackops/lib-common/pipeline';
import type { KeystoneAPI } from '../../api/keystone-api.js';
import {
  ApplicationCredentialConditionType,
  ApplicationCredentialLabels,
  type KeystoneApplicationCredential,
  type KeystoneApplicationCredentialStatus,
  serviceOfAcName,
} from '../../api/keystone-application-credential.js';
import type { IdentityClient } from '../../identity/client.js';
import type { IdentityClientPool } from '../../identity/client-pool.js';

/** A pass of a KeystoneApplicationCredential reconcile. */
export interface AcPass extends Pass<KeystoneApplicationCredential, KeystoneApplicationCredentialStatus> {
  /** Service-user clients, one token per user and password, reused across passes. */
  pool: IdentityClientPool;
  /** The namespace's KeystoneAPI, Ready (set by `checkKeystoneAPI`). */
  api?: KeystoneAPI;
  /** Keystone as the service user, scoped to project service (set by `connectServiceUser`). */
  user?: { identity: IdentityClient; userId: string };
}

/**
 * The owner marker (ADR 0012) an application credential carries in its description: Keystone keeps
 * no extra attributes on application credentials, so the marker goes after upstream's text.
 */
export const ownerMarker = (cr: KeystoneApplicationCredential): string =>
  `stackops_owner=KeystoneApplicationCredential/${cr.metadata.namespace ?? ''}/${cr.metadata.name ?? ''}/${cr.metadata.uid ?? ''}`;

/** Upstream's description, then the marker. */
export const credentialDescription = (cr: KeystoneApplicationCredential): string =>
  `Created by keystone-operator for AC CR ${cr.metadata.namespace ?? ''}/${cr.metadata.name ?? ''} (user: ${cr.spec.userName}) ${ownerMarker(cr)}`;

/** `application-credentials=true,application-credential-service=<service>`: this CR's Secrets. */
export const secretSelector = (cr: KeystoneApplicationCredential): string =>
  `${ApplicationCredentialLabels.all}=true,${ApplicationCredentialLabels.service}=${serviceOfAcName(cr.metadata.name ?? '')}`;

/**
 * KeystoneApplicationCredentialReady False with `message`; a Warning Event `reason` only when the
 * message differs from the last pass's (a problem is announced once, not on every retry).
 */
export function markAcFalse(
  ctx: AcPass,
  severity: Severity,
  eventReason: string,
  format: string,
  ...args: unknown[]
): void {
  const type = ApplicationCredentialConditionType;
  ctx.conditions.markFalse(
    type,
    severity === 'Info' ? Reason.Requested : Reason.Error,
    severity,
    format,
    ...args,
  );
  const message = ctx.conditions.get(type)?.message ?? '';
  const before = Conditions.from(ctx.previousStatus?.conditions).get(type);
  if (before?.message !== message) ctx.event('Warning', eventReason, message);
}
