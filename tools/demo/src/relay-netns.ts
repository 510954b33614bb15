/**
 * The namespace side of `exposeHostPort` (relay.ts), run as
 * `nsenter --net=<netns> -- node relay-netns.js <host> <port> <socket>`: listens on <host>:<port>
 * inside the real node's network namespace and hands each connection to the unix socket, whose
 * other end (in the demo process, on the host) connects to 127.0.0.1. Node-only imports.
 */
import { connect, createServer } from 'node:net';
import { pipeBoth } from './pipe.js';

const [host = '', portArg = '', socketPath = ''] = process.argv.slice(2);
const port = Number(portArg);
if (!host || !(port > 0) || !socketPath) {
  process.stderr.write('usage: relay-netns <host> <port> <socket>\n');
  process.exit(2);
}

const server = createServer((client) => pipeBoth(client, connect(socketPath)));
server.on('error', (err) => {
  process.stderr.write(`relay ${host}:${port}: ${err.message}\n`);
  process.exit(1);
});
server.listen(port, host, () => process.stdout.write(`listening on ${host}:${port}\n`));
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
  process.on(signal, () => server.close(() => process.exit(0)));
