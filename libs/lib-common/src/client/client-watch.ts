import type { ResponseBody } from './client-http2.js';
import type { HttpRequest } from './client-transport.js';
import { ApiError, apiErrorFromResponse, CONNECTION_ERROR } from './errors.js';
import type { KubeObject, WatchEvent } from './types.js';

/**
 * Reads newline-delimited watch events until the server ends the stream (resolves), the caller's
 * signal aborts (resolves), an ERROR event arrives (rejects with its Status, e.g. 410 Expired), or
 * the connection breaks (rejects with a code-0 ApiError).
 */
export function streamEvents<T extends KubeObject>(
  res: ResponseBody,
  req: Pick<HttpRequest, 'path' | 'signal'>,
  onEvent: (e: WatchEvent<T>) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let settled = false;
    const finish = (err?: unknown): void => {
      if (settled) return;
      settled = true;
      if (err === undefined || req.signal?.aborted) resolve();
      else {
        res.destroy();
        reject(err);
      }
    };
    const handleLine = (line: string): void => {
      if (line.trim() === '') return;
      let event: WatchEvent<T>;
      try {
        event = JSON.parse(line) as WatchEvent<T>;
      } catch (err) {
        finish(
          new ApiError({ code: 0, reason: 'InvalidWatchEvent', message: line.slice(0, 200), cause: err }),
        );
        return;
      }
      if (event.type === 'ERROR') {
        const status = event.object as unknown as Record<string, unknown>;
        const code = typeof status['code'] === 'number' ? status['code'] : 500;
        finish(apiErrorFromResponse(code, status, { verb: 'WATCH', path: req.path }));
        return;
      }
      onEvent(event);
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf('\n');
      while (nl >= 0 && !settled) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          handleLine(line);
        } catch (err) {
          finish(err);
        }
        nl = buffered.indexOf('\n');
      }
    });
    res.on('end', () => {
      if (!settled && buffered) {
        try {
          handleLine(buffered);
        } catch (err) {
          finish(err);
        }
      }
      finish();
    });
    res.on('error', (err) =>
      finish(
        new ApiError({ code: 0, reason: CONNECTION_ERROR, message: err.message, path: req.path, cause: err }),
      ),
    );
    res.on('close', () => {
      if (res.complete === false)
        finish(
          new ApiError({ code: 0, reason: CONNECTION_ERROR, message: 'watch stream closed', path: req.path }),
        );
      else finish();
    });
  });
}
