import { describe, expect, it } from 'vitest';
import { ConditionCatalog, ConditionType, formatMessage, messagesOf } from './catalog.js';

describe('formatMessage', () => {
  it.each([
    ['Input data error occurred %s', ['boom'], 'Input data error occurred boom'],
    ['%s and %s', ['a', 'b'], 'a and b'],
    ['%s and %s', ['a'], 'a and '],
    ['no placeholder', ['ignored'], 'no placeholder'],
    ['list %s', [['internalapi', 'storage']], 'list [internalapi storage]'],
    ['err %s', [new Error('bad thing')], 'err bad thing'],
    ['num %s', [42], 'num 42'],
  ])('%j with %j → %j', (format, args, expected) => {
    expect(formatMessage(format, ...args)).toBe(expected);
  });
});

describe('catalog', () => {
  it('names every standard type after itself', () => {
    for (const key of Object.keys(ConditionCatalog)) {
      expect(ConditionType[key as keyof typeof ConditionType]).toBe(key);
    }
  });

  it.each([
    ['Ready', 'init', 'Setup started'],
    ['Ready', 'ready', 'Setup complete'],
    ['DBSyncReady', 'running', 'DBsync job still running'],
    ['MemcachedReady', 'init', ' Memcached create not started'],
    ['RabbitMqTransportURLReady', 'error', 'RabbitMqTransportURL error occured %s'],
    ['NetworkAttachmentsReady', 'waiting', 'NetworkAttachment resources missing: %s'],
    ['ServiceAccountReady', 'running', 'ServiceAccount creation in progress'],
  ])('%s.%s is the upstream text', (type, key, text) => {
    expect(messagesOf(type)?.[key as 'init']).toBe(text);
  });

  it('has no messages for a type outside the catalog, nor for inherited keys', () => {
    expect(messagesOf('KeystoneAPIReady')).toBeUndefined();
    expect(messagesOf('toString')).toBeUndefined();
  });

  it('every error format takes exactly one argument', () => {
    for (const [type, m] of Object.entries(ConditionCatalog)) {
      const error = (m as { error?: string }).error;
      if (error !== undefined) expect(error.split('%s').length - 1, type).toBe(1);
    }
  });
});
