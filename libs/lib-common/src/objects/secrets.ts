import { isAlreadyExists } from '../client/errors.js';
import { Kinds } from '../client/kinds.js';
import type { KubeClient, KubeObject } from '../client/types.js';
import { stableHash } from './hash.js';

/** Which key of which Secret (a `secretKeyRef`-like selector). */
export interface SecretKeySelector {
  name: string;
  key: string;
}

export interface SecretObject extends KubeObject {
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  type?: string;
}

/** A required key is not in a Secret. The message names the key and the Secret, never a value. */
export class MissingSecretKeyError extends Error {
  override readonly name = 'MissingSecretKeyError';
  constructor(
    readonly secret: string,
    readonly key: string,
  ) {
    super(`missing key ${key} in Secret ${secret}`);
  }
}

function secretName(secret: SecretObject): string {
  const { namespace, name } = secret.metadata;
  return namespace ? `${namespace}/${name}` : (name ?? '');
}

/**
 * The decoded value of `key`, or undefined when the Secret has no such key. A single trailing
 * newline is removed (upstream `GetDataFromSecret`), since `echo pw | base64` is how many
 * Secrets are written by hand.
 */
export function secretValue(secret: SecretObject, key: string): string | undefined {
  const raw = secret.data?.[key];
  const value = raw !== undefined ? Buffer.from(raw, 'base64').toString('utf8') : secret.stringData?.[key];
  return value?.replace(/\r?\n$/, '');
}

/** The values of `keys` (in that order); throws MissingSecretKeyError for the first key that is missing. */
export function requireSecretKeys(secret: SecretObject, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const v = secretValue(secret, key);
    if (v === undefined) throw new MissingSecretKeyError(secretName(secret), key);
    out[key] = v;
  }
  return out;
}

export type VerifiedSecret =
  | { found: false }
  /** `hash` covers the required values in the given order (upstream `VerifySecret`), for the input hash. */
  | { found: true; hash: string; values: Record<string, string>; secret: SecretObject };

/**
 * Reads a Secret (from `current` if the caller has it cached, else with a GET) and checks that it
 * has every required key. A missing Secret is not an error (`found: false`: wait for it; a watch on
 * Secrets brings the owner back); a missing key throws MissingSecretKeyError.
 */
export async function verifySecret(
  client: KubeClient,
  ref: { name: string; namespace: string },
  keys: readonly string[],
  current?: SecretObject | null,
): Promise<VerifiedSecret> {
  const secret = current !== undefined ? current : await client.get<SecretObject>(Kinds.Secret, ref);
  if (!secret) return { found: false };
  const values = requireSecretKeys(secret, keys);
  return { found: true, hash: stableHash(keys.map((k) => values[k])), values, secret };
}

/** Reads one key by selector; undefined when the Secret or the key is missing. */
export async function readSecretKey(
  client: KubeClient,
  namespace: string,
  selector: SecretKeySelector,
): Promise<string | undefined> {
  const secret = await client.get<SecretObject>(Kinds.Secret, { name: selector.name, namespace });
  return secret ? secretValue(secret, selector.key) : undefined;
}

/**
 * A Secret created once and then only read (a generated password): `cached` when the cache has it,
 * else the live one — an older install's Secret may lack the labels the cache selects on, and a
 * create would be refused on every pass — else `desired`, created. One created meanwhile by another
 * writer (the cache lags) is kept: a password in use is never replaced.
 */
export async function getOrCreateSecret(
  client: KubeClient,
  desired: SecretObject,
  cached: SecretObject | undefined,
): Promise<SecretObject> {
  if (cached) return cached;
  const ref = { name: desired.metadata.name ?? '', namespace: desired.metadata.namespace ?? '' };
  const live = await client.get<SecretObject>(Kinds.Secret, ref);
  if (live) return live;
  try {
    return await client.create<SecretObject>(Kinds.Secret, desired);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const created = await client.get<SecretObject>(Kinds.Secret, ref);
    if (!created) throw err;
    return created;
  }
}
