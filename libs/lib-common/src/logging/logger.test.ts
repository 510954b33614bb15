import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, forObject, namedLogger } from './logger.js';

/** A destination that keeps each line pino writes. */
function lineSink(): { lines: string[]; sink: Writable } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, sink };
}

describe('createLogger', () => {
  it('writes JSON with the component name when not pretty', () => {
    const log = createLogger({ name: 'test-operator', pretty: false, level: 'debug' });
    expect(log.level).toBe('debug');
    expect(log.bindings()).toMatchObject({ name: 'test-operator' });
  });

  it('puts the object key and kind on every line of a reconcile logger', () => {
    const { lines, sink } = lineSink();
    const base = pino({ name: 'x' }, sink);
    const log = forObject(base, 'KeystoneAPI', 'openstack/keystone');
    log.info('reconciling');
    log.info({ step: 'db' }, 'step done');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ kind: 'KeystoneAPI', key: 'openstack/keystone' });
    }
  });

  it('names each component of one process once per line, each at its own level', () => {
    const { lines, sink } = lineSink();
    const root = pino({ level: 'info' }, sink);
    const keystone = namedLogger(root, 'keystone', 'debug');
    const sip = namedLogger(root, 'sip');
    keystone.debug('detail');
    sip.debug('dropped');
    sip.info('started');
    expect(lines.map((l) => JSON.parse(l).name)).toEqual(['keystone', 'sip']);
    for (const line of lines) expect(line.match(/"name":/g)).toHaveLength(1);
  });
});
