import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, forObject } from './logger.js';

describe('createLogger', () => {
  it('writes JSON with the component name when not pretty', () => {
    const log = createLogger({ name: 'test-operator', pretty: false, level: 'debug' });
    expect(log.level).toBe('debug');
    expect(log.bindings()).toMatchObject({ name: 'test-operator' });
  });

  it('puts the object key and kind on every line of a reconcile logger', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const base = pino({ name: 'x' }, sink);
    const log = forObject(base, 'KeystoneAPI', 'openstack/keystone');
    log.info('reconciling');
    log.info({ step: 'db' }, 'step done');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ kind: 'KeystoneAPI', key: 'openstack/keystone' });
    }
  });
});
