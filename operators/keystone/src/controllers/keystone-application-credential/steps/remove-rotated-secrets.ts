import { Kinds } from '@stackops/lib-common/client';
import { type SecretObject, secretValue } from '@stackops/lib-common/objects';
import { removeFinalizer } from '@stackops/lib-common/runtime';
import {
  ApplicationCredentialFinalizers,
  isAcConsumerFinalizer,
  ApplicationCredentialSecretKeys as Keys,
} from '../../../api/keystone-application-credential.js';
import { credentialsMarked, revokeApplicationCredential } from '../application-credentials.js';
import { type AcPass, ownerMarker, secretSelector } from '../context.js';

/** How often a pass looks again at an old Secret a consumer still holds (nothing wakes it when released). */
const CONSUMER_RECHECK_MS = 60_000;

/** This CR's credential Secrets: labelled for its service and owned by it (or named in its status). */
export async function credentialSecrets(ctx: AcPass): Promise<SecretObject[]> {
  const { cr } = ctx;
  // Read from the API server: the cache holds the Secrets by name only, and a just-created one
  // must be seen.
  const list = await ctx.client.list<SecretObject>(Kinds.Secret, {
    namespace: cr.metadata.namespace ?? '',
    labelSelector: secretSelector(cr),
  });
  const named = new Set([ctx.status.secretName, ctx.status.previousSecretName]);
  const found = list.items.filter(
    (s) =>
      named.has(s.metadata.name) ||
      (s.metadata.ownerReferences ?? []).some((r) => r.uid === cr.metadata.uid && r.controller === true),
  );
  // Older upstream versions wrote Secrets without the service label: the status still names them
  // (and they are watched by name).
  for (const name of named) {
    if (!name || found.some((s) => s.metadata.name === name)) continue;
    const unlabelled = ctx.cache.get<SecretObject>(Kinds.Secret, {
      namespace: cr.metadata.namespace ?? '',
      name,
    });
    if (unlabelled) found.push(unlabelled);
  }
  return found;
}

/** Revokes the credential of a Secret and lets the Secret go (protection finalizer off, deleted). */
export async function releaseSecret(ctx: AcPass, secret: SecretObject, opts: { delete: boolean }) {
  const id = secretValue(secret, Keys.id);
  if (id && ctx.user) {
    if (await revokeApplicationCredential(ctx.user.identity, ctx.user.userId, id))
      ctx.event(
        'Normal',
        'ApplicationCredentialRevoked',
        `Revoked application credential ${id} (Secret ${secret.metadata.name ?? ''})`,
      );
  }
  await removeFinalizer(ctx.client, Kinds.Secret, secret, ApplicationCredentialFinalizers.secret);
  if (opts.delete && secret.metadata.deletionTimestamp === undefined)
    await ctx.client.delete(Kinds.Secret, {
      namespace: secret.metadata.namespace ?? '',
      name: secret.metadata.name ?? '',
    });
}

/**
 * After a rotation: every older Secret of this CR — neither the current nor the previous one, and
 * held by no consumer (`openstack.org/<service>-ac-consumer`) — has its credential revoked in
 * Keystone and is deleted; so is a previous one someone deleted. Then credentials marked as this
 * CR's that no Secret records (a crash between Keystone's create and the Secret's) are revoked.
 */
export async function removeRotatedSecrets(ctx: AcPass) {
  if (!ctx.user) throw new Error('removeRotatedSecrets runs after connectServiceUser');
  const secrets = await credentialSecrets(ctx);
  let held = false;
  for (const s of secrets) {
    const name = s.metadata.name;
    const kept =
      name === ctx.status.secretName ||
      (name === ctx.status.previousSecretName && s.metadata.deletionTimestamp === undefined);
    if (kept) continue;
    if ((s.metadata.finalizers ?? []).some(isAcConsumerFinalizer)) {
      held = true;
      continue;
    }
    await releaseSecret(ctx, s, { delete: true });
  }
  if (held) ctx.requeueAfter(CONSUMER_RECHECK_MS);
  const recorded = new Set(secrets.map((s) => secretValue(s, Keys.id)));
  for (const id of await credentialsMarked(ctx.user.identity, ctx.user.userId, ownerMarker(ctx.cr))) {
    if (recorded.has(id) || id === ctx.status.acID) continue;
    if (await revokeApplicationCredential(ctx.user.identity, ctx.user.userId, id))
      ctx.event(
        'Normal',
        'ApplicationCredentialRevoked',
        `Revoked application credential ${id} (recorded in no Secret)`,
      );
  }
  return undefined;
}
