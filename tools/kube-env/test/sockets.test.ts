import { describe, expect, it } from 'vitest';
import { parseProcNetTcp } from './sockets.js';

describe('parseProcNetTcp', () => {
  it('decodes IPv4 rows', () => {
    const text = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 12345 1 0000000000000000 100 0 0 10 0',
      '   1: 00000000:0016 0200000A:C350 01 00000000:00000000 00:00000000 00000000     0        0 678 1 0000000000000000 100 0 0 10 0',
    ].join('\n');
    expect(parseProcNetTcp(text, false)).toEqual([
      { local: '127.0.0.1:8080', remote: '0.0.0.0:0', state: 'LISTEN', inode: 12345 },
      { local: '0.0.0.0:22', remote: '10.0.0.2:50000', state: 'ESTABLISHED', inode: 678 },
    ]);
  });

  it('decodes IPv6 rows, showing IPv4-mapped addresses as IPv4', () => {
    const text = [
      '  sl  local_address                         remote_address                        st',
      '   0: 0000000000000000FFFF00000100007F:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 11 1',
      '   1: 00000000000000000000000001000000:0050 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 12 1',
    ].join('\n');
    const [mapped, loopback6] = parseProcNetTcp(text, true);
    expect(mapped?.local).toBe('127.0.0.1:8080');
    expect(loopback6?.local).toBe('0:0:0:0:0:0:0:1:80');
  });
});
