import { describe, expect, it } from 'vitest';
import { formatIni, mergeIni, parseIni } from './ini.js';

describe('parseIni', () => {
  it('keeps values as text, drops comments, trims around = and :', () => {
    const doc = parseIni(
      '# top\n[DEFAULT]\ndebug = true\n; c\n[database]\nconnection=mysql+pymysql://u:p@h/db?x=1\nmax_retries: -1\n',
    );
    expect([...doc.keys()]).toEqual(['DEFAULT', 'database']);
    expect(Object.fromEntries(doc.get('DEFAULT') ?? [])).toEqual({ debug: 'true' });
    expect(Object.fromEntries(doc.get('database') ?? [])).toEqual({
      connection: 'mysql+pymysql://u:p@h/db?x=1',
      max_retries: '-1',
    });
  });

  it('puts keys before any section under ""', () => {
    expect(Object.fromEntries(parseIni('a = 1').get('') ?? [])).toEqual({ a: '1' });
  });

  it('reports the line of a malformed entry', () => {
    expect(() => parseIni('[s]\nok = 1\nnot an entry\n')).toThrow('INI line 3');
  });
});

describe('mergeIni', () => {
  it.each<[string, string[], string]>([
    ['later value wins', ['[s]\na = 1\n', '[s]\na = 2\n'], '[s]\na = 2\n'],
    [
      'keys are added after existing ones',
      ['[s]\na = 1\nb = 2\n', '[s]\nc = 3\na = 9\n'],
      '[s]\na = 9\nb = 2\nc = 3\n',
    ],
    ['new sections go last', ['[a]\nx = 1\n', '[b]\ny = 2\n'], '[a]\nx = 1\n\n[b]\ny = 2\n'],
    ['comments and blank lines disappear', ['# c\n[a]\n\nx = 1 \n', '; c2\n[a]\n# y\n'], '[a]\nx = 1\n'],
    ['three documents', ['[a]\nx = 1\n', '[a]\nx = 2\n', '[a]\nx = 3\n'], '[a]\nx = 3\n'],
    ['empty customServiceConfig', ['[a]\nx = 1\n', ''], '[a]\nx = 1\n'],
    ['empty values kept', ['[a]\nx =\n'], '[a]\nx = \n'],
  ])('%s', (_n, docs, expected) => {
    expect(mergeIni(...docs)).toBe(expected);
  });

  it('round-trips through parse/format', () => {
    const text = '[DEFAULT]\na = 1\n\n[s]\nb = x=y\n';
    expect(formatIni(parseIni(text))).toBe(text);
  });
});
