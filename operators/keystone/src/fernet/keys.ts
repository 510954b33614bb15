import { randomBytes } from 'node:crypto';

/**
 * Fernet and credential keys, kept in the `keystone` Secret and rotated by the operator (as
 * upstream keystone-operator does). Key `FernetKeys<i>` is mounted as file `<i>` of keystone's
 * key repository: 0 is the staged key, the highest index the primary, the rest secondaries.
 * Values here are the Secret's `data` values (base64 of the key text), moved around as they are.
 */

export const fernetKey = (i: number): string => `FernetKeys${i}`;
export const credentialKey = (i: number): string => `CredentialKeys${i}`;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A new Fernet key (32 random bytes, URL-safe base64), as a Secret data value. */
function newKeyValue(): string {
  const key = `${randomBytes(32).toString('base64url')}=`;
  return Buffer.from(key, 'utf8').toString('base64');
}

export interface KeysInput {
  /** The Secret's data; undefined when the Secret does not exist yet. */
  data: Readonly<Record<string, string>> | undefined;
  /** The rotatedat annotation as found. */
  rotatedAt: string | undefined;
  maxActiveKeys: number;
  rotationDays: number;
  now: Date;
  generate?: () => string;
}

export interface KeysResult {
  data: Record<string, string>;
  rotatedAt: string;
  /** Whether the Secret has to be written. */
  changed: boolean;
  /** Whether a rotation happened in this pass. */
  rotated: boolean;
  /** When the next rotation is due. */
  nextRotation: Date;
}

const formatTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

function highestFernetIndex(data: Record<string, string>): number {
  let i = -1;
  while (data[fernetKey(i + 1)] !== undefined) i++;
  return i;
}

/** Drops the oldest secondary (index 1), shifting the higher keys down by one. */
function dropOldestSecondary(data: Record<string, string>): void {
  const top = highestFernetIndex(data);
  for (let k = 1; k < top; k++) data[fernetKey(k)] = data[fernetKey(k + 1)]!;
  delete data[fernetKey(top)];
}

/** Inserts a new key at index 1, shifting the others up by one. */
function insertSecondary(data: Record<string, string>, value: string): void {
  const top = highestFernetIndex(data);
  for (let k = top; k >= 1; k--) data[fernetKey(k + 1)] = data[fernetKey(k)]!;
  data[fernetKey(1)] = value;
}

/**
 * One pass of upstream's algorithm: create the keys when the Secret is missing; otherwise rotate
 * when `rotatedAt + rotationDays` has passed (the staged key becomes the primary at index N, a new
 * staged key takes index 0), drop secondaries above N-1, add secondaries up to N-1, and stamp the
 * time whenever something changed. An unreadable timestamp is rewritten without rotating.
 */
export function ensureKeys(input: KeysInput): KeysResult {
  const gen = input.generate ?? newKeyValue;
  const n = input.maxActiveKeys;
  const nowText = formatTime(input.now);
  const next = (from: Date) => new Date(from.getTime() + input.rotationDays * DAY_MS);
  if (!input.data) {
    const data: Record<string, string> = { [credentialKey(0)]: gen(), [credentialKey(1)]: gen() };
    for (let i = 0; i < n; i++) data[fernetKey(i)] = gen();
    return { data, rotatedAt: nowText, changed: true, rotated: false, nextRotation: next(input.now) };
  }
  const data = { ...input.data };
  let changed = false;
  let rotated = false;
  const parsed = input.rotatedAt ? new Date(input.rotatedAt) : undefined;
  if (!parsed || Number.isNaN(parsed.getTime())) {
    changed = true;
  } else if (next(parsed).getTime() < input.now.getTime()) {
    data[fernetKey(n)] = data[fernetKey(0)] ?? gen();
    data[fernetKey(0)] = gen();
    changed = rotated = true;
  }
  for (const key of [fernetKey(0), credentialKey(0), credentialKey(1)]) {
    if (data[key] === undefined) {
      data[key] = gen();
      changed = true;
    }
  }
  while (data[fernetKey(n)] !== undefined) {
    dropOldestSecondary(data);
    changed = true;
  }
  while (data[fernetKey(n - 1)] === undefined) {
    insertSecondary(data, gen());
    changed = true;
  }
  const rotatedAt = changed ? nowText : (input.rotatedAt ?? nowText);
  return {
    data,
    rotatedAt,
    changed,
    rotated,
    nextRotation: next(changed ? input.now : (parsed ?? input.now)),
  };
}
