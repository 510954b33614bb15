import { createHash } from 'node:crypto';
import type {
  AccessRule,
  KeystoneApplicationCredentialSpec,
} from '../../api/keystone-application-credential.js';
import type { IdentityClient } from '../../identity/client.js';
import { isIdentityNotFound } from '../../identity/errors.js';

/** Keystone's answer to a create: the secret is returned this once and never again. */
export interface CreatedCredential {
  id: string;
  secret: string;
  expiresAt: Date;
}

interface CredentialBody {
  application_credential?: { id?: string; secret?: string; expires_at?: string | null; description?: string };
}

/** `POST /v3/users/{user}/application_credentials` with the spec's roles, access rules and lifetime. */
export async function createApplicationCredential(
  identity: IdentityClient,
  userId: string,
  args: { name: string; description: string; spec: KeystoneApplicationCredentialSpec; now: Date },
): Promise<CreatedCredential> {
  const { spec } = args;
  const days = spec.expirationDays ?? 365;
  const expires = new Date(args.now.getTime() + days * DAY_MS);
  const body = {
    application_credential: {
      name: args.name,
      description: args.description,
      roles: spec.roles.map((name) => ({ name })),
      unrestricted: spec.unrestricted ?? false,
      expires_at: expires.toISOString(),
      ...(spec.accessRules?.length ? { access_rules: spec.accessRules } : {}),
    },
  };
  const res = (await identity.request(
    'POST',
    `users/${encodeURIComponent(userId)}/application_credentials`,
    body,
  )) as CredentialBody | undefined;
  const ac = res?.application_credential;
  if (!ac?.id || !ac.secret) throw new Error('Keystone answered the create without an id or secret');
  return { id: ac.id, secret: ac.secret, expiresAt: ac.expires_at ? keystoneTime(ac.expires_at) : expires };
}

/** Keystone writes UTC times without a zone (`2026-05-29T09:02:28.705012`). */
const keystoneTime = (text: string): Date =>
  new Date(/(?:[zZ]|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`);

/** Revokes one credential; one already gone is not an error (upstream ignores 404 too). */
export async function revokeApplicationCredential(
  identity: IdentityClient,
  userId: string,
  id: string,
): Promise<boolean> {
  try {
    await identity.request(
      'DELETE',
      `users/${encodeURIComponent(userId)}/application_credentials/${encodeURIComponent(id)}`,
    );
    return true;
  } catch (err) {
    if (isIdentityNotFound(err)) return false;
    throw err;
  }
}

/** The user's credentials whose description carries `marker`. */
export async function credentialsMarked(
  identity: IdentityClient,
  userId: string,
  marker: string,
): Promise<string[]> {
  const res = (await identity.request(
    'GET',
    `users/${encodeURIComponent(userId)}/application_credentials`,
  )) as { application_credentials?: { id?: string; description?: string | null }[] } | undefined;
  return (res?.application_credentials ?? [])
    .filter((c) => c.id && (c.description ?? '').includes(marker))
    .map((c) => c.id as string);
}

export const DAY_MS = 24 * 60 * 60 * 1000;

// Upstream's hash (lib-common `util.ObjectHash`), reproduced so a CR upstream created keeps its
// `securityHash` and is not rotated when stackops takes it over: Go's json.Marshal of
// {Roles, AccessRules, Unrestricted} → SHA-256 → the byte array printed as Go prints it
// (`[12 250 …]`) → each character mapped into the alphabet below.
const GO_SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON as Go's encoder writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped. */
const goJson = (value: unknown): string =>
  JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** `status.securityHash`: what, once changed, rotates the credential at once. */
export function securityHash(spec: KeystoneApplicationCredentialSpec): string {
  const rules: AccessRule[] | null = spec.accessRules?.length
    ? spec.accessRules.map((r) => ({ service: r.service, path: r.path, method: r.method }))
    : spec.accessRules
      ? []
      : null;
  const json = goJson({ Roles: spec.roles, AccessRules: rules, Unrestricted: spec.unrestricted ?? false });
  const bytes = [...createHash('sha256').update(json).digest()];
  const printed = `[${bytes.join(' ')}]`;
  let out = '';
  for (const c of printed) out += GO_SAFE_ALPHABET[c.charCodeAt(0) % GO_SAFE_ALPHABET.length];
  return out;
}
