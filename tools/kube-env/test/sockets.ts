import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One row of /proc/net/tcp or /proc/net/tcp6. */
export interface TcpSocket {
  local: string;
  remote: string;
  /** 'LISTEN', 'ESTABLISHED', … (only the states we name; others as hex). */
  state: string;
  inode: number;
}

const states: Record<string, string> = {
  '01': 'ESTABLISHED',
  '06': 'TIME_WAIT',
  '08': 'CLOSE_WAIT',
  '0A': 'LISTEN',
};

/** /proc/net/tcp stores an IPv4 address as one little-endian 32-bit word in hex. */
function ipv4(hex: string): string {
  return [6, 4, 2, 0].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join('.');
}

/** tcp6 stores four little-endian 32-bit words; IPv4-mapped addresses are shown as IPv4. */
function ipv6(hex: string): string {
  const words = [0, 8, 16, 24].map((i) => hex.slice(i, i + 8));
  if (words[0] === '00000000' && words[1] === '00000000' && words[2] === 'FFFF0000')
    return ipv4(words[3] ?? '');
  const bytes = words.flatMap((w) => [6, 4, 2, 0].map((i) => w.slice(i, i + 2)));
  const groups = Array.from({ length: 8 }, (_, g) =>
    `${bytes[2 * g]}${bytes[2 * g + 1]}`.replace(/^0+(?=.)/, '').toLowerCase(),
  );
  return groups.join(':');
}

function parseEndpoint(field: string, v6: boolean): string {
  const [ip = '', port = '0'] = field.split(':');
  return `${v6 ? ipv6(ip) : ipv4(ip)}:${Number.parseInt(port, 16)}`;
}

export function parseProcNetTcp(text: string, v6: boolean): TcpSocket[] {
  return text
    .split('\n')
    .slice(1)
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const f = line.trim().split(/\s+/);
      return {
        local: parseEndpoint(f[1] ?? '', v6),
        remote: parseEndpoint(f[2] ?? '', v6),
        state: states[f[3] ?? ''] ?? f[3] ?? '',
        inode: Number(f[9]),
      };
    });
}

/** Every TCP socket (IPv4 and IPv6) that one of the process's file descriptors refers to. */
export function tcpSocketsOf(pid: number): TcpSocket[] {
  const inodes = new Set<number>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(Number(match[1]));
    } catch {
      // fd closed while we were reading
    }
  }
  const all = [
    ...parseProcNetTcp(readFileSync('/proc/net/tcp', 'utf8'), false),
    ...parseProcNetTcp(readFileSync('/proc/net/tcp6', 'utf8'), true),
  ];
  return all.filter((s) => inodes.has(s.inode));
}
