/**
 * Joins the host's 127.0.0.1 to the real node's network namespace, one TCP port at a time, through
 * unix sockets (a file system path is reachable from both namespaces, a TCP address is not):
 *
 *   host:  127.0.0.1:<port>  → <dir>/<port>.sock      node forwarder.js host  <dir> <port>…
 *   netns: <dir>/<port>.sock → 127.0.0.1:<port>       node forwarder.js netns <dir> <port>…
 *
 * So the kubeconfig's https://127.0.0.1:<port> works on the host and inside the namespace alike.
 * Node-only imports and erasable TypeScript, so Node can also run the .ts source directly.
 */
import { rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

const [mode = '', dir = '', ...portArgs] = process.argv.slice(2);
const ports = portArgs.map(Number);

if ((mode !== 'host' && mode !== 'netns') || !dir || ports.length === 0 || !ports.every((p) => p > 0)) {
  process.stderr.write('usage: forwarder <host|netns> <socket-dir> <port>...\n');
  process.exit(2);
}

/** Pipes two sockets both ways; either side closing or failing closes the other. */
function join2(a: Socket, b: Socket): void {
  const close = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', close).on('close', close);
  b.on('error', close).on('close', close);
  a.pipe(b);
  b.pipe(a);
}

const socketPath = (port: number) => join(dir, `${port}.sock`);
const servers: Server[] = [];

for (const port of ports) {
  const server = createServer((client) => {
    // A refused upstream (its component still starting) closes the client: that is the answer it needs.
    const upstream = mode === 'host' ? connect(socketPath(port)) : connect(port, '127.0.0.1');
    join2(client, upstream);
  });
  server.on('error', (error) => {
    process.stderr.write(`forwarder ${mode} ${port}: ${error.message}\n`);
    process.exit(1);
  });
  if (mode === 'host') {
    server.listen(port, '127.0.0.1');
  } else {
    rmSync(socketPath(port), { force: true });
    server.listen(socketPath(port));
  }
  servers.push(server);
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    for (const server of servers) server.close();
    if (mode === 'netns') for (const port of ports) rmSync(socketPath(port), { force: true });
    process.exit(0);
  });
}
