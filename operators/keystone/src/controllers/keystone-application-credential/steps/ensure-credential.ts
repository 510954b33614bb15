import { randomBytes } from 'node:crypto';
import { isAlreadyExists, Kinds } from '@stackops/lib-common/client';
import { formatTime, Severity } from '@stackops/lib-common/conditions';
import { controllerReference, type SecretObject, secretValue } from '@stackops/lib-common/objects';
import { stop } from '@stackops/lib-common/pipeline';
import {
  ApplicationCredentialConditionType,
  ApplicationCredentialFinalizers,
  ApplicationCredentialLabels,
  acSecretName,
  ApplicationCredentialSecretKeys as Keys,
  ApplicationCredentialMessages as M,
  serviceOfAcName,
} from '../../../api/keystone-application-credential.js';
import { IdentityError } from '../../../identity/errors.js';
import {
  type CreatedCredential,
  createApplicationCredential,
  DAY_MS,
  revokeApplicationCredential,
  securityHash,
} from '../application-credentials.js';
import { type AcPass, credentialDescription, markAcFalse } from '../context.js';

/** setTimeout's limit is ~24.8 days; a long wait is cut into passes this long. */
const MAX_WAIT_MS = 12 * 60 * 60 * 1000;

/** Why the credential must be (re)created now, or undefined. */
async function rotationReason(ctx: AcPass, now: Date): Promise<string | undefined> {
  const { status, cr } = ctx;
  if (!status.acID) return 'ApplicationCredential does not exist, creating';
  if (status.securityHash && status.securityHash !== securityHash(cr.spec))
    return 'Security fields changed, rotating';
  if (status.expiresAt) {
    const grace = (cr.spec.gracePeriodDays ?? 182) * DAY_MS;
    if (now.getTime() >= new Date(status.expiresAt).getTime() - grace)
      return 'ApplicationCredential is within grace period, rotating';
  }
  if (status.secretName && !(await currentSecretUsable(ctx, status.secretName)))
    return 'ApplicationCredential secret missing, rotating';
  return undefined;
}

/** The current Secret exists and is not being deleted (the cache first; a miss is confirmed by a read). */
async function currentSecretUsable(ctx: AcPass, name: string): Promise<boolean> {
  const ref = { namespace: ctx.cr.metadata.namespace ?? '', name };
  // Watched by name from the pass that recorded it: the watch may not have listed it yet.
  const secret =
    ctx.cache.get<SecretObject>(Kinds.Secret, ref) ?? (await ctx.client.get<SecretObject>(Kinds.Secret, ref));
  return secret !== undefined && secret.metadata.deletionTimestamp === undefined;
}

/** The immutable Secret upstream stores a credential in, protected by its finalizer, owned by the CR. */
function credentialSecret(ctx: AcPass, created: CreatedCredential): SecretObject {
  const { cr } = ctx;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: acSecretName(cr.metadata.name ?? '', created.id),
      namespace: cr.metadata.namespace ?? '',
      labels: {
        [ApplicationCredentialLabels.all]: 'true',
        [ApplicationCredentialLabels.service]: serviceOfAcName(cr.metadata.name ?? ''),
      },
      finalizers: [ApplicationCredentialFinalizers.secret],
      ownerReferences: [controllerReference(cr)],
    },
    immutable: true,
    type: 'Opaque',
    stringData: { [Keys.id]: created.id, [Keys.secret]: created.secret },
  } as SecretObject;
}

/** Five lower-case letters and digits (upstream names each credential `<cr>-<5 random>`). */
const randomSuffix = (): string =>
  [...randomBytes(5)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

/** Keystone refused the request for what the spec asks (a role the user lacks, an access rule it rejects). */
const refusedForSpec = (err: unknown): err is IdentityError =>
  err instanceof IdentityError && [400, 403, 404].includes(err.status);

/**
 * Creates the credential when there is none, and rotates it — a new credential in a new immutable
 * Secret, the current one becoming `previousSecretName` — once inside the grace window, when roles,
 * access rules or `unrestricted` changed, or when its Secret is gone. Otherwise only
 * `rotationEligibleAt` follows `gracePeriodDays`. Comes back when rotation becomes due.
 */
export async function ensureCredential(ctx: AcPass) {
  if (!ctx.user) throw new Error('ensureCredential runs after connectServiceUser');
  const { cr, status } = ctx;
  const now = ctx.now();
  const grace = (cr.spec.gracePeriodDays ?? 182) * DAY_MS;
  const reason = await rotationReason(ctx, now);
  if (reason) {
    ctx.log.info({ reason }, reason);
    const rotation = Boolean(status.acID);
    const name = `${cr.metadata.name ?? ''}-${randomSuffix()}`;
    let created: CreatedCredential;
    try {
      created = await createApplicationCredential(ctx.user.identity, ctx.user.userId, {
        name,
        description: credentialDescription(cr),
        spec: cr.spec,
        now,
      });
    } catch (err) {
      if (!refusedForSpec(err)) throw err;
      markAcFalse(
        ctx,
        Severity.Error,
        'InvalidSpec',
        M.error,
        `Keystone refused the credential for spec.roles/spec.accessRules/spec.unrestricted: ${err.keystoneMessage}`,
      );
      return stop();
    }
    const secret = credentialSecret(ctx, created);
    const secretName = secret.metadata.name ?? '';
    try {
      await ctx.client.create(Kinds.Secret, secret);
    } catch (err) {
      // A crash after the create would leave the same name behind: fine when it holds this ID.
      const existing = isAlreadyExists(err)
        ? await ctx.client.get<SecretObject>(Kinds.Secret, {
            namespace: cr.metadata.namespace ?? '',
            name: secretName,
          })
        : undefined;
      if (!existing || secretValue(existing, Keys.id) !== created.id) {
        // Never leave a credential in Keystone that no Secret records.
        await revokeApplicationCredential(ctx.user.identity, ctx.user.userId, created.id).catch(() => false);
        throw err;
      }
    }
    const previousExpiry = status.expiresAt;
    if (rotation && status.secretName) status.previousSecretName = status.secretName;
    status.acID = created.id;
    status.secretName = secretName;
    status.createdAt = formatTime(now);
    status.expiresAt = formatTime(created.expiresAt);
    status.rotationEligibleAt = formatTime(new Date(created.expiresAt.getTime() - grace));
    status.securityHash = securityHash(cr.spec);
    if (rotation) {
      status.lastRotated = formatTime(now);
      ctx.event(
        'Normal',
        'ApplicationCredentialRotated',
        `Rotated credentials for user ${cr.spec.userName}. New expiration: ${status.expiresAt}, next rotation eligible: ${status.rotationEligibleAt} (grace period: ${cr.spec.gracePeriodDays ?? 182} days). Previous credential expires: ${previousExpiry ?? ''}`,
      );
    }
  } else if (status.expiresAt) {
    status.rotationEligibleAt = formatTime(new Date(new Date(status.expiresAt).getTime() - grace));
  }
  ctx.conditions.markTrue(ApplicationCredentialConditionType, M.ready);
  if (status.rotationEligibleAt) {
    const wait = new Date(status.rotationEligibleAt).getTime() - now.getTime();
    ctx.requeueAfter(Math.min(Math.max(wait, 1_000), MAX_WAIT_MS));
  }
  return undefined;
}
