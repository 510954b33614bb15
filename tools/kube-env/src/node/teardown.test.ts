import { describe, expect, it } from 'vitest';
import { missingPackages } from './packages.js';
import { mountPoints, topmostMissing } from './teardown.js';

describe('mountPoints', () => {
  it('reads mount points and file system types, decoding escaped spaces', () => {
    const mountinfo = [
      '36 25 0:32 / /sys/fs/cgroup/memory rw,relatime shared:15 - cgroup cgroup rw,memory',
      '99 36 0:50 / /state/my\\040cluster/node/kubelet/pods/x rw,relatime - tmpfs tmpfs rw',
    ].join('\n');
    expect(mountPoints(mountinfo)).toEqual([
      { path: '/sys/fs/cgroup/memory', fstype: 'cgroup' },
      { path: '/state/my cluster/node/kubelet/pods/x', fstype: 'tmpfs' },
    ]);
  });
});

describe('topmostMissing', () => {
  const existing = new Set(['/', '/var', '/var/lib']);
  const exists = (p: string) => existing.has(p);

  it('names the first folder that creating the path would create', () => {
    expect(topmostMissing('/var/lib/kubelet/device-plugins', exists)).toBe('/var/lib/kubelet');
    expect(topmostMissing('/run/netns', exists)).toBe('/run');
  });

  it('is undefined when the path exists', () => {
    expect(topmostMissing('/var/lib', exists)).toBeUndefined();
  });
});

describe('missingPackages', () => {
  it('lists each Debian package once, for any of its files that is missing', () => {
    expect(missingPackages(() => true)).toEqual([]);
    expect(missingPackages((f) => f !== '/usr/bin/ctr' && f !== '/usr/bin/containerd')).toEqual([
      'containerd',
    ]);
  });
});
