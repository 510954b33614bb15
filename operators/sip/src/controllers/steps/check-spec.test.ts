import { describe, expect, it } from 'vitest';
import type { SIPCluster } from '../../api/kinds.js';
import { sipSpecProblems } from './check-spec.js';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb8m3Ue0MYdKYsK6mXoWqHcD7r9R3ls6dB1m0rA6q4x ops@example';
const spec = (keys: string[]) =>
  ({
    services: { jumpHost: [{ nodePort: 30000, nodeSSHPrivateKeys: 'keys', sshAuthorizedKeys: keys }] },
  }) as unknown as SIPCluster['spec'];

describe('sipSpecProblems', () => {
  it('names every bad authorized key at once, by its index', () => {
    const problems = sipSpecProblems(
      spec(['ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIGb8 x', KEY, 'ssh-ed25519 AAAA y']),
    );
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(
      /^spec\.services\.jumpHost\[0\]\.sshAuthorizedKeys\[0\] is not a valid authorized key: /,
    );
    expect(problems[1]).toMatch(/^spec\.services\.jumpHost\[0\]\.sshAuthorizedKeys\[2\] /);
  });
  it('has none for valid keys or no jump host', () => {
    expect(sipSpecProblems(spec([KEY]))).toEqual([]);
    expect(sipSpecProblems({ services: {} } as SIPCluster['spec'])).toEqual([]);
  });
});
