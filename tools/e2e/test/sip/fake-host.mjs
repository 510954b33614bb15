// A test double run inside the real node's network namespace (nsenter --net): one BareMetalHost's
// servers on its IP, or an HTTP forward proxy. Prints `ready` once every port listens.
//
//   node fake-host.mjs host <name> <ip> <tls.json|-> <unready-file> <port>...
//       port 6443 with TLS: a tenant API server (GET /readyz: 500 while <unready-file> exists,
//       else 200); every answer's body is `<name>:<port>`
//   node fake-host.mjs proxy <ip> <port>
//       a plain-HTTP forward proxy that logs `proxied <method> <url>` for each request
//   node fake-host.mjs hold <https-url>
//       one TLS connection kept open: a GET on it every 500 ms, each answer logged as
//       `answer <body> <new|reused>` (or `error <message>`)
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const [mode, ...args] = process.argv.slice(2);

function listen(server, ip, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, ip, resolve);
  });
}

if (mode === 'host') {
  const [name, ip, tlsFile, unreadyFile, ...ports] = args;
  const tls = tlsFile === '-' ? undefined : JSON.parse(readFileSync(tlsFile, 'utf8'));
  await Promise.all(
    ports.map((p) => {
      const port = Number(p);
      const handler = (req, res) => {
        const unready = req.url === '/readyz' && existsSync(unreadyFile);
        res.writeHead(unready ? 500 : 200, { 'content-type': 'text/plain' });
        res.end(`${name}:${port}\n`);
      };
      const server = tls
        ? https.createServer({ cert: tls.cert, key: tls.key }, handler)
        : http.createServer(handler);
      return listen(server, ip, port);
    }),
  );
} else if (mode === 'proxy') {
  const [ip, port] = args;
  const server = http.createServer((req, res) => {
    process.stdout.write(`proxied ${req.method} ${req.url}\n`);
    const upstream = http.request(req.url, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(upstream);
  });
  await listen(server, ip, Number(port));
} else if (mode === 'hold') {
  const [url] = args;
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
  const get = () =>
    new Promise((resolve) => {
      const req = https.get(url, { agent }, (res) => {
        let body = '';
        res.on('data', (d) => {
          body += d;
        });
        res.on('end', () => resolve(`answer ${body.trim()} ${req.reusedSocket ? 'reused' : 'new'}`));
      });
      req.on('error', (err) => resolve(`error ${err.message}`));
    });
  process.stdout.write(`${await get()}\n`);
  setInterval(async () => process.stdout.write(`${await get()}\n`), 500);
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
process.stdout.write('ready\n');
