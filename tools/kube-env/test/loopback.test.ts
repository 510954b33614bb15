import { describe, expect, inject, it } from 'vitest';
import { clusterLayout, controlPlaneComponents } from '../src/cluster/layout.js';
import { readPid } from '../src/cluster/processes.js';
import { tcpSocketsOf } from './sockets.js';

const isLoopback4 = (endpoint: string) => endpoint.startsWith('127.0.0.1:');

describe('network hygiene', () => {
  it("every socket of the control plane's processes is on 127.0.0.1", () => {
    const layout = clusterLayout(inject('kubeEnvCluster'));
    const listeners: Record<string, string[]> = {};
    for (const component of controlPlaneComponents) {
      const pid = readPid(layout.pidFile(component));
      expect(pid, `${component} pid file`).toBeDefined();
      const sockets = tcpSocketsOf(pid ?? 0);
      listeners[component] = sockets.filter((s) => s.state === 'LISTEN').map((s) => s.local);
      for (const socket of sockets) {
        expect(isLoopback4(socket.local), `${component} ${socket.state} local ${socket.local}`).toBe(true);
        if (socket.state !== 'LISTEN') {
          expect(isLoopback4(socket.remote), `${component} ${socket.state} remote ${socket.remote}`).toBe(
            true,
          );
        }
      }
    }
    // The check above is only meaningful if it saw the listeners we know exist.
    expect(listeners.etcd).toHaveLength(2);
    expect(listeners['kube-apiserver']).toHaveLength(1);
    expect(listeners['kube-controller-manager']).toHaveLength(1);
    expect(listeners['kube-scheduler']).toHaveLength(1);
  });
});
