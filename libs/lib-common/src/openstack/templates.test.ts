import { describe, expect, it } from 'vitest';
import {
  buildConfigMap,
  buildConfigSecret,
  renderCustomData,
  renderString,
  substituteParameters,
  TemplateError,
} from './templates.js';

describe('renderString', () => {
  it('interpolates without HTML escaping and keeps newlines after values', () => {
    expect(renderString('a=<%= it.a %>\nb=<%= it.b %>\n', { a: '<x&y>', b: 2 })).toBe('a=<x&y>\nb=2\n');
  });

  it('control tags drop the newline with -%>', () => {
    const t = '<% if (it.tls) { -%>\nssl = on\n<% } -%>\nend\n';
    expect(renderString(t, { tls: true })).toBe('ssl = on\nend\n');
    expect(renderString(t, { tls: false })).toBe('end\n');
  });

  it('loops over lists', () => {
    expect(renderString('<% it.hosts.forEach(h => { -%>\n<%= h %>\n<% }) -%>\n', { hosts: ['a', 'b'] })).toBe(
      'a\nb\n',
    );
  });

  it.each([
    ['top-level', '<%= it.missing %>', {}, 'missing key it.missing'],
    ['nested', '<%= it.db.host %>', { db: {} }, 'missing key it.db.host'],
  ])('a missing %s key is an error naming it', (_n, t, data, message) => {
    expect(() => renderString(t, data, 'x.conf')).toThrow(TemplateError);
    expect(() => renderString(t, data, 'x.conf')).toThrow(`template x.conf: ${message}`);
  });
});

describe('substituteParameters / renderCustomData', () => {
  const data = { Region: 'regionOne', Port: 5000, TLS: false, DB: { Host: 'db.svc' }, List: ['a'] };

  it.each([
    ['plain text', '[DEFAULT]\ndebug = true\n', '[DEFAULT]\ndebug = true\n'],
    ['a parameter', 'region = {{ .Region }}', 'region = regionOne'],
    ['numbers, booleans, nested, trim markers', '{{.Port}} {{ .TLS }} {{- .DB.Host -}}', '5000 false db.svc'],
    [
      'an unknown key keeps the text verbatim',
      'a = {{ .Region }} b = {{ .Nope }}',
      'a = {{ .Region }} b = {{ .Nope }}',
    ],
    ['a non-scalar keeps the text verbatim', 'x = {{ .List }}', 'x = {{ .List }}'],
    ['any other action keeps the text verbatim', '{{ if .TLS }}x{{ end }}', '{{ if .TLS }}x{{ end }}'],
    ['Eta code is not evaluated', '<%= process.exit(1) %> {{ .Region }}', '<%= process.exit(1) %> regionOne'],
    ['prototype keys are not reachable', '{{ .constructor }}', '{{ .constructor }}'],
  ])('%s', (_n, text, expected) => {
    expect(substituteParameters(text, data)).toBe(expected);
  });

  it('renders every value, keyed and sorted by name', () => {
    expect(renderCustomData({ 'z.conf': 'r = {{ .Region }}', 'custom.conf': '[a]\n' }, data)).toEqual({
      'custom.conf': '[a]\n',
      'z.conf': 'r = regionOne',
    });
  });
});

describe('config objects', () => {
  it('Secret data is base64 in sorted keys; ConfigMap keeps text', () => {
    const input = { name: 'c', namespace: 'n', labels: { a: '1' }, data: { 'z.conf': 'z', 'a.conf': 'é' } };
    expect(buildConfigSecret(input)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'c', namespace: 'n', labels: { a: '1' } },
      type: 'Opaque',
      data: { 'a.conf': Buffer.from('é').toString('base64'), 'z.conf': 'eg==' },
    });
    const cm = buildConfigMap(input);
    expect(Object.keys(cm['data'] as object)).toEqual(['a.conf', 'z.conf']);
    expect(cm['data']).toEqual({ 'a.conf': 'é', 'z.conf': 'z' });
  });
});
