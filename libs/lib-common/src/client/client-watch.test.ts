import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { streamEvents } from './client-watch.js';
import { ApiError } from './errors.js';
import type { WatchEvent } from './types.js';

const line = (type: string, name: string, rv: string): string =>
  `${JSON.stringify({ type, object: { metadata: { name, resourceVersion: rv } } })}\n`;

describe('streamEvents', () => {
  it('delivers newline-delimited events split across chunks, then resolves when the server ends', async () => {
    const s = new PassThrough();
    const events: WatchEvent[] = [];
    const done = streamEvents(s, { path: '/api/v1/configmaps' }, (e) => events.push(e));
    const text = line('ADDED', 'a', '1') + line('MODIFIED', 'a', '2') + line('BOOKMARK', '', '3');
    s.write(text.slice(0, 17));
    s.write(text.slice(17, 80));
    s.end(text.slice(80));
    await done;
    expect(events.map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual([
      ['ADDED', '1'],
      ['MODIFIED', '2'],
      ['BOOKMARK', '3'],
    ]);
  });

  it('rejects with the Status of an ERROR event (410 Expired)', async () => {
    const s = new PassThrough();
    const done = streamEvents(s, { path: '/p' }, () => undefined);
    s.write(
      `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } })}\n`,
    );
    await expect(done).rejects.toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('rejects with a connection error when the stream breaks', async () => {
    const s = new PassThrough();
    const done = streamEvents(s, { path: '/p' }, () => undefined);
    s.write(line('ADDED', 'a', '1'));
    s.destroy(new Error('socket hang up'));
    const err = await done.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 0, reason: 'ConnectionError' });
  });

  it('resolves quietly when the caller aborted', async () => {
    const s = new PassThrough();
    const ac = new AbortController();
    const done = streamEvents(s, { path: '/p', signal: ac.signal }, () => undefined);
    ac.abort();
    s.destroy(new Error('aborted'));
    await expect(done).resolves.toBeUndefined();
  });

  it('stops and rejects when the event handler throws', async () => {
    const s = new PassThrough();
    const seen: string[] = [];
    const done = streamEvents(s, { path: '/p' }, (e) => {
      seen.push(e.object.metadata.name ?? '');
      throw new Error('handler failed');
    });
    s.write(line('ADDED', 'a', '1') + line('ADDED', 'b', '2'));
    await expect(done).rejects.toThrow('handler failed');
    expect(seen).toEqual(['a']);
  });
});
