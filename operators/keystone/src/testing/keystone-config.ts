import { join } from 'node:path';

export interface KeystoneLayout {
  dir: string;
  config: string;
  database: string;
  fernetKeys: string;
  credentialKeys: string;
  /** Keystone's stderr (oslo.log) and the server's own messages. */
  log: string;
}

export function keystoneLayout(dir: string): KeystoneLayout {
  return {
    dir,
    config: join(dir, 'keystone.conf'),
    database: join(dir, 'keystone.sqlite'),
    fernetKeys: join(dir, 'fernet-keys'),
    credentialKeys: join(dir, 'credential-keys'),
    log: join(dir, 'keystone.log'),
  };
}

/**
 * keystone.conf for a test Keystone: sqlite, fernet tokens from `fernetKeys`, secure RBAC as the
 * operator configures it (enforce_new_defaults/enforce_scope), and cheap password hashing
 * (bcrypt's minimum rounds) so the many password checks of a test run stay fast.
 */
export function renderKeystoneConfig(layout: KeystoneLayout, maxActiveKeys: number): string {
  return `[DEFAULT]
use_stderr = true

[database]
connection = sqlite:///${layout.database}

[fernet_tokens]
key_repository = ${layout.fernetKeys}
max_active_keys = ${maxActiveKeys}

[fernet_receipts]
key_repository = ${layout.fernetKeys}
max_active_keys = ${maxActiveKeys}

[credential]
key_repository = ${layout.credentialKeys}

[identity]
password_hash_rounds = 4

[oslo_policy]
enforce_new_defaults = true
enforce_scope = true
`;
}
