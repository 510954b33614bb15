import { createServer, type Server } from 'node:net';

/**
 * Asks the kernel for `count` distinct free TCP ports on 127.0.0.1. The listeners are held open
 * until all are allocated, so the ports differ from each other; another process could still take
 * one before our component binds it, which `up` handles by retrying with new ports.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port assigned');
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
