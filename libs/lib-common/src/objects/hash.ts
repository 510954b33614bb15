import { createHash } from 'node:crypto';
import { stableStringify } from '../client/json.js';

/**
 * Upstream's hash alphabet (`rand.SafeEncodeString`): no vowels, no 0/1/3, so a hash never spells
 * a word and survives in names and label values.
 */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** ⌈256 / log2(27)⌉: enough base-27 digits for the whole SHA-256. */
const HASH_LENGTH = 54;

/**
 * SHA-256 of the value's stable JSON (object keys sorted at every level, so key order never
 * matters; array order does), written in upstream's alphabet as 54 characters — short enough for
 * an env var, an annotation or a label value (≤ 63).
 */
export function stableHash(value: unknown): string {
  let n = BigInt(`0x${createHash('sha256').update(stableStringify(value)).digest('hex')}`);
  const base = BigInt(ALPHABET.length);
  let out = '';
  for (let i = 0; i < HASH_LENGTH; i++) {
    out += ALPHABET[Number(n % base)];
    n /= base;
  }
  return out;
}

/** `status.hash`: named hashes of the inputs a CR's pods or jobs depend on. */
export type HashMap = Record<string, string>;

/** Whether `value` differs from what `hashes[key]` holds (a missing key counts as changed). */
export function hashChanged(hashes: HashMap | undefined, key: string, value: string): boolean {
  return hashes?.[key] !== value;
}

/** Returns a copy of `hashes` with `key` set, and whether that changed anything. */
export function setHash(
  hashes: HashMap | undefined,
  key: string,
  value: string,
): { hashes: HashMap; changed: boolean } {
  const changed = hashChanged(hashes, key, value);
  return { hashes: { ...hashes, [key]: value }, changed };
}

/** The name upstream stores the combined input hash under in `status.hash`. */
export const INPUT_HASH_KEY = 'input';

/**
 * One hash for a set of named input hashes (`configMapVars` upstream): the inputs sorted by name,
 * then hashed, so adding inputs in another order gives the same result.
 */
export function hashOfInputHashes(inputs: Readonly<Record<string, string>>): string {
  const list = Object.keys(inputs)
    .sort()
    .map((name) => ({ name, value: inputs[name] }));
  return stableHash(list);
}

/**
 * The input-hash pattern (upstream's `configMapVars`): compute the combined hash of every input
 * the pods depend on and compare it with `status.hash.input`. When `changed`, the caller stores `hashes` in status
 * and ends this reconcile, so the next pass works with a hash that is stable; `hash` then goes into
 * the pod template (`CONFIG_HASH`) and a change rolls the pods.
 */
export function inputHash(
  statusHashes: HashMap | undefined,
  inputs: Readonly<Record<string, string>>,
  key = INPUT_HASH_KEY,
): { hash: string; changed: boolean; hashes: HashMap } {
  const hash = hashOfInputHashes(inputs);
  return { hash, ...setHash(statusHashes, key, hash) };
}

/** Hash of a Secret's content (data, stringData, type), as upstream's `secret.Hash`. */
export function secretHash(secret: {
  data?: Record<string, string> | undefined;
  stringData?: Record<string, string> | undefined;
  type?: string | undefined;
}): string {
  return stableHash({
    data: secret.data ?? {},
    stringData: secret.stringData ?? {},
    type: secret.type ?? '',
  });
}

/** Hash of a ConfigMap's content (data, binaryData). */
export function configMapHash(cm: {
  data?: Record<string, string> | undefined;
  binaryData?: Record<string, string> | undefined;
}): string {
  return stableHash({ data: cm.data ?? {}, binaryData: cm.binaryData ?? {} });
}
