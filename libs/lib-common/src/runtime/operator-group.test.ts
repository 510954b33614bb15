import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AnyOperator, runOperators } from './operator-group.js';
import type { OperatorIo } from './operator-main.js';

describe('runOperators', () => {
  it('lets the connection start between two operators registering, and names each logger once', async () => {
    const order: string[] = [];
    // A bare TCP listener, only to see when the process connects: no handshake is ever answered, so
    // the informers retry in the background; registering needs no answer.
    const listener = createServer((socket) => {
      order.push('connected');
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as AddressInfo;
    const dir = mkdtempSync(join(tmpdir(), 'operator-group-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
    );
    const names: string[] = [];
    const operator = (name: string): AnyOperator => ({
      name,
      summary: name,
      register: (_manager, ctx) => {
        order.push(`${name} registers`);
        names.push(String(ctx.logger.bindings()['name']));
      },
    });
    const codes: number[] = [];
    const io: OperatorIo = {
      argv: [
        `--kubeconfig=${kubeconfig}`,
        '--metrics-bind-address=0',
        '--health-probe-bind-address=127.0.0.1:0',
      ],
      env: {},
      stdout: () => {},
      stderr: () => {},
      exit: (code) => codes.push(code),
    };
    try {
      await runOperators({ name: 'group', operators: [operator('a'), operator('b'), operator('c')] }, io);
      // In one block of CPU, the connection would only leave after the last operator registered.
      expect(order.indexOf('connected')).toBeGreaterThan(order.indexOf('a registers'));
      expect(order.indexOf('connected')).toBeLessThan(order.indexOf('c registers'));
      expect(names).toEqual(['a', 'b', 'c']);
      expect(codes).toEqual([]);
    } finally {
      // runOperators stops on SIGTERM, as the process does.
      process.emit('SIGTERM', 'SIGTERM');
      await new Promise<void>((resolve) => {
        const wait = () => (codes.length ? resolve() : setTimeout(wait, 10));
        wait();
      });
      rmSync(dir, { recursive: true, force: true });
      listener.close();
    }
    expect(codes).toEqual([0]);
  });
});
