import { connect } from 'node:http2';
import type { RequestOptions } from 'node:https';
import type { loadTestKubeConfig } from '@stackops/lib-common/testing';
import type { AuditEvent } from './audit.js';

/** The subject's watch-lists (informers syncing: `sendInitialEvents=true`) among `events`, each once. */
export function watchListsOf(events: readonly AuditEvent[], filter: (e: AuditEvent) => boolean): string[] {
  const byId = new Map<string, string>();
  for (const e of events)
    if (filter(e) && e.verb === 'watch' && /[?&]sendInitialEvents=true(&|$)/.test(e.requestURI))
      byId.set(e.auditID, e.requestURI);
  return [...byId.values()];
}

type KubeConfig = ReturnType<typeof loadTestKubeConfig>;

const INITIAL_EVENTS_END = '"k8s.io/initial-events-end":"true"';

/**
 * The part of spawn → ready that is not the subject's own code: a new HTTP/2 connection from this
 * (warm) process, then every one of `paths` sent at once and read up to its initial-events-end
 * bookmark, seconds. A process whose informers make these requests is not ready before its code has
 * loaded and this much more has passed.
 */
export async function watchListsAnswered(kc: KubeConfig, paths: readonly string[]): Promise<number> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('the kubeconfig names no server');
  const tls: RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const headers = (tls.headers ?? {}) as Record<string, string>;
  const started = performance.now();
  const session = connect(server, {
    ...(tls.ca ? { ca: tls.ca } : {}),
    ...(tls.cert ? { cert: tls.cert } : {}),
    ...(tls.key ? { key: tls.key } : {}),
  });
  try {
    await Promise.all(
      paths.map(
        (path) =>
          new Promise<void>((resolve, reject) => {
            const stream = session.request({ ':path': path, ...headers });
            let tail = '';
            stream.setEncoding('utf8');
            stream.on('response', (h) => {
              if (h[':status'] !== 200) reject(new Error(`${path}: HTTP ${h[':status']}`));
            });
            stream.on('data', (chunk: string) => {
              // Only the tail is kept: the marker may straddle two chunks.
              tail = (tail + chunk).slice(-(chunk.length + INITIAL_EVENTS_END.length));
              if (!tail.includes(INITIAL_EVENTS_END)) return;
              resolve();
              stream.close();
            });
            stream.on('error', reject);
            stream.on('end', () => reject(new Error(`${path}: ended before its initial events`)));
          }),
      ),
    );
    return (performance.now() - started) / 1000;
  } finally {
    session.destroy();
  }
}
