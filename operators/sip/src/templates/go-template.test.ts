import { describe, expect, it } from 'vitest';
import { parseGoTemplate, renderGoTemplate, TemplateError } from './go-template.js';

const data = {
  ContainerPorts: [
    { Name: 'port-30002', HostPort: 0, ContainerPort: 30002, Protocol: '', HostIP: '' },
    { Name: 'port-30003', HostPort: 0, ContainerPort: 30003, Protocol: '', HostIP: '' },
  ],
  Servers: [
    { IP: '10.0.0.1', Name: 'w-1' },
    { IP: '10.0.0.2', Name: 'w-2' },
  ],
};

describe('Go templates (the subset site HAProxy templates use)', () => {
  it('nested ranges over variables, with trimming, as a load balancer template writes them (Go keeps the newline before each {{ end -}})', () => {
    const src = [
      'global',
      '  maxconn 10',
      '# ports',
      '{{- $all := .Servers }}',
      '{{- range .ContainerPorts }}',
      '{{- $p := . }}',
      'listen {{ $p.Name }}',
      '  bind *:{{ $p.ContainerPort }}',
      '{{- range $all }}',
      '  server {{ .Name }} {{ .IP }}:{{ $p.ContainerPort }}',
      '{{ end -}}',
      '{{ end -}}',
    ].join('\n');
    expect(renderGoTemplate(src, data)).toBe(
      [
        'global',
        '  maxconn 10',
        '# ports',
        'listen port-30002',
        '  bind *:30002',
        '  server w-1 10.0.0.1:30002',
        '',
        '  server w-2 10.0.0.2:30002',
        '',
        'listen port-30003',
        '  bind *:30003',
        '  server w-1 10.0.0.1:30003',
        '',
        '  server w-2 10.0.0.2:30003',
        '',
      ].join('\n'),
    );
  });

  it('if/else if/else, with, range $i, $e and else, builtins, pipes, comments', () => {
    const src =
      '{{/* a comment */}}{{ range $i, $s := .Servers }}{{ if eq $i 0 }}first{{ else if eq $s.Name "w-2" }}second{{ else }}other{{ end }} {{ end }}' +
      '{{ with .Servers }}{{ len . }}{{ end }} {{ index .ContainerPorts 1 | printf "%v" }} {{ range .Missing }}{{ else }}none{{ end }}';
    expect(renderGoTemplate(src, { ...data, Missing: [] })).toBe(
      'first second 2 {port-30003 0 30003  } none',
    );
  });

  it("escapes what actions print as html/template does (upstream's parser)", () => {
    expect(renderGoTemplate('{{ .A }} <b>', { A: 'a<b>&"+\'' })).toBe('a&lt;b&gt;&amp;&#34;&#43;&#39; <b>');
  });

  it.each([
    ['{{ range .Servers }}\nx', 1, 'unexpected EOF: {{range}} has no {{end}}'],
    ['a\nb\n{{ end }}', 3, 'unexpected {{end}}'],
    ['a\n{{ .Servers', 2, 'unclosed action'],
    ['\n\n{{ $x }}', 3, 'undefined variable "$x"'],
    ['{{ upper .A }}', 1, 'function "upper" not defined'],
    ['x\n{{ template "t" }}', 2, '{{template}} is not supported here'],
  ])('refuses %j at line %i: %s', (src, line, detail) => {
    let err: unknown;
    try {
      parseGoTemplate(src);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateError);
    expect({ line: (err as TemplateError).line, detail: (err as TemplateError).detail }).toEqual({
      line,
      detail,
    });
  });

  it('a field the data lacks fails when run, naming the line', () => {
    expect(() => renderGoTemplate('ok\n{{ range .Servers }}{{ .Port }}{{ end }}', data)).toThrow(
      /^line 2: can't evaluate field Port/,
    );
  });
});
