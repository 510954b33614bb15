/** Where the jump host mounts the node private keys (one file per Secret key). */
export const PRIVATE_KEYS_DIR = '/etc/opt/sip/ssh-private-keys';

export interface SshHost {
  name: string;
  ip: string;
}

/** ~/.ssh/config of the jump host's user: every private key for every host, and one entry per host. */
export function renderSshConfig(privateKeyNames: readonly string[], hosts: readonly SshHost[]): string {
  const lines = ['Host *'];
  for (const key of [...privateKeyNames].sort()) lines.push(`  IdentityFile ${PRIVATE_KEYS_DIR}/${key}`);
  for (const h of hosts) lines.push('', `Host ${h.name}`, `  HostName ${h.ip}`);
  return `${lines.join('\n')}\n`;
}
