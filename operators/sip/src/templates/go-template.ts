/**
 * The part of Go's text/template that a site's HAProxy template uses, with html/template's escaping
 * of what actions print (upstream parses the ConfigMap's template with html/template): text,
 * `{{- -}}` trimming, comments, fields (`.A.B`, `$x.A`), variables (`$x := …`, `$x = …`), `if` /
 * `else if` / `else`, `range` (with `$i, $e :=` and `else`), `with`, `end`, pipes, parentheses,
 * string/number/bool literals and the builtins and, or, not, len, index, eq, ne, lt, le, gt, ge,
 * print, printf, println. `define`, `template`, `block`, `break` and `continue` are refused by name.
 */

/** A template that does not parse or cannot run; `line` is 1-based in the template's text. */
export class TemplateError extends Error {
  constructor(
    readonly line: number,
    readonly detail: string,
  ) {
    super(`line ${line}: ${detail}`);
  }
}

type Value = unknown;

type Expr =
  | { t: 'dot'; fields: string[] }
  | { t: 'var'; name: string; fields: string[] }
  | { t: 'lit'; value: Value }
  | { t: 'paren'; pipe: Pipeline; fields: string[] }
  | { t: 'fn'; name: string };

interface Command {
  args: Expr[];
}
interface Pipeline {
  decl?: { names: string[]; assign: boolean };
  cmds: Command[];
  line: number;
}

type Node =
  | { t: 'text'; text: string }
  | { t: 'print'; pipe: Pipeline }
  | { t: 'if' | 'with'; pipe: Pipeline; body: Node[]; else: Node[] }
  | { t: 'range'; pipe: Pipeline; body: Node[]; else: Node[] };

const BUILTINS = new Set([
  'and',
  'or',
  'not',
  'len',
  'index',
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'print',
  'printf',
  'println',
]);
const REFUSED = new Set(['define', 'template', 'block', 'break', 'continue']);

interface Action {
  body: string;
  line: number;
}
type Piece = { text: string } | { action: Action };

/** Text and actions, with `{{-`/`-}}` trimming applied and comments dropped. */
function lex(src: string): Piece[] {
  const pieces: Piece[] = [];
  let pos = 0;
  let line = 1;
  let trimNext = false;
  while (pos <= src.length) {
    const open = src.indexOf('{{', pos);
    let text = src.slice(pos, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) {
      pieces.push({ text });
      break;
    }
    const actionLine = line + (src.slice(pos, open).match(/\n/g)?.length ?? 0);
    const close = src.indexOf('}}', open + 2);
    if (close < 0) throw new TemplateError(actionLine, 'unclosed action');
    let body = src.slice(open + 2, close);
    if (/^-\s/.test(body)) {
      text = text.replace(/\s+$/, '');
      body = body.slice(1);
    }
    trimNext = /\s-$/.test(body);
    if (trimNext) body = body.slice(0, -1);
    pieces.push({ text });
    body = body.trim();
    if (body.startsWith('/*')) {
      if (!body.endsWith('*/')) throw new TemplateError(actionLine, 'unclosed comment');
    } else pieces.push({ action: { body, line: actionLine } });
    line = actionLine + (src.slice(open, close + 2).match(/\n/g)?.length ?? 0);
    pos = close + 2;
  }
  return pieces.filter((p) => !('text' in p) || p.text !== '');
}

type Tok = { k: 'field' | 'var' | 'ident' | 'str' | 'num' | 'op'; v: string };

function tokenize(body: string, line: number): Tok[] {
  const toks: Tok[] = [];
  const re =
    /\s*(?:(:=|=|\||\(|\)|,)|("(?:[^"\\]|\\.)*"|`[^`]*`)|(-?\d+(?:\.\d+)?)|(\$[A-Za-z0-9_]*)|((?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)|([A-Za-z_][A-Za-z0-9_]*))((?:\.[A-Za-z_][A-Za-z0-9_]*)*)/y;
  let pos = 0;
  while (pos < body.length) {
    if (/^\s*$/.test(body.slice(pos))) break;
    re.lastIndex = pos;
    const m = re.exec(body);
    if (!m) throw new TemplateError(line, `unexpected "${body.slice(pos).trim()}" in command`);
    pos = re.lastIndex;
    const [, op, str, num, variable, field, ident, chain] = m;
    if (op) toks.push({ k: 'op', v: op });
    else if (str)
      toks.push({ k: 'str', v: str.startsWith('`') ? str.slice(1, -1) : (JSON.parse(str) as string) });
    else if (num) toks.push({ k: 'num', v: num });
    else if (variable) toks.push({ k: 'var', v: variable });
    else if (field) toks.push({ k: 'field', v: field });
    else if (ident) toks.push({ k: 'ident', v: ident });
    if (chain) toks.push({ k: 'field', v: chain });
  }
  return toks;
}

const fieldsOf = (chain: string): string[] => chain.split('.').filter(Boolean);

class Parser {
  private scopes: Set<string>[] = [new Set(['$'])];

  constructor(private readonly pieces: Piece[]) {}
  private i = 0;

  parse(): Node[] {
    const { nodes, end } = this.list();
    if (end) throw new TemplateError(end.line, `unexpected {{${end.body}}}`);
    return nodes;
  }

  /** Nodes up to an `end` or `else` action (returned), or the end of input. */
  private list(): { nodes: Node[]; end?: Action } {
    const nodes: Node[] = [];
    while (this.i < this.pieces.length) {
      const piece = this.pieces[this.i++]!;
      if ('text' in piece) {
        nodes.push({ t: 'text', text: piece.text });
        continue;
      }
      const a = piece.action;
      const word = /^[a-z]+/.exec(a.body)?.[0] ?? '';
      if (word === 'end' || word === 'else') return { nodes, end: a };
      if (REFUSED.has(word)) throw new TemplateError(a.line, `{{${word}}} is not supported here`);
      if (word === 'if' || word === 'with' || word === 'range') nodes.push(this.control(word, a));
      else nodes.push({ t: 'print', pipe: this.pipeline(a.body, a.line) });
    }
    return { nodes };
  }

  private control(word: 'if' | 'with' | 'range', a: Action): Node {
    this.scopes.push(new Set());
    const pipe = this.pipeline(a.body.slice(word.length), a.line, word === 'range' ? 2 : 1);
    const body = this.list();
    this.scopes.pop();
    if (!body.end) throw new TemplateError(a.line, `unexpected EOF: {{${word}}} has no {{end}}`);
    let elseNodes: Node[] = [];
    if (body.end.body.startsWith('else')) {
      const rest = body.end.body.slice(4).trim();
      if (rest.startsWith('if') && word === 'if') {
        // `else if …` is an `if` inside the else branch that shares this one's {{end}}
        elseNodes = [this.control('if', { body: rest, line: body.end.line })];
      } else {
        if (rest) throw new TemplateError(body.end.line, `unexpected "${rest}" in else`);
        this.scopes.push(new Set());
        const tail = this.list();
        this.scopes.pop();
        if (tail.end?.body !== 'end')
          throw new TemplateError(a.line, `unexpected EOF: {{${word}}} has no {{end}}`);
        elseNodes = tail.nodes;
      }
    } else if (body.end.body !== 'end') {
      throw new TemplateError(body.end.line, `unexpected "${body.end.body}"`);
    }
    return word === 'range'
      ? { t: 'range', pipe, body: body.nodes, else: elseNodes }
      : { t: word, pipe, body: body.nodes, else: elseNodes };
  }

  private declared(name: string): boolean {
    return this.scopes.some((s) => s.has(name));
  }

  private pipeline(body: string, line: number, maxDecl = 1): Pipeline {
    const toks = tokenize(body, line);
    let decl: Pipeline['decl'];
    const assignAt = toks.findIndex((t) => t.k === 'op' && (t.v === ':=' || t.v === '='));
    if (assignAt > 0) {
      const names = toks
        .slice(0, assignAt)
        .filter((t) => !(t.k === 'op' && t.v === ','))
        .map((t) => {
          if (t.k !== 'var') throw new TemplateError(line, `unexpected "${t.v}" before ${toks[assignAt]!.v}`);
          return t.v;
        });
      if (names.length > maxDecl) throw new TemplateError(line, 'too many declarations in command');
      const assign = toks[assignAt]!.v === '=';
      for (const n of names) {
        if (assign && !this.declared(n)) throw new TemplateError(line, `undefined variable "${n}"`);
        if (!assign) this.scopes.at(-1)!.add(n);
      }
      decl = { names, assign };
      toks.splice(0, assignAt + 1);
    }
    const pipe = this.commands(toks, line);
    return { ...pipe, ...(decl ? { decl } : {}) };
  }

  private commands(toks: Tok[], line: number): Pipeline {
    const cmds: Command[] = [];
    let args: Expr[] = [];
    let i = 0;
    const operand = (): Expr => {
      const t = toks[i++]!;
      if (t.k === 'field') return { t: 'dot', fields: fieldsOf(t.v) };
      if (t.k === 'str') return { t: 'lit', value: t.v };
      if (t.k === 'num') return { t: 'lit', value: Number(t.v) };
      if (t.k === 'var') {
        if (!this.declared(t.v)) throw new TemplateError(line, `undefined variable "${t.v}"`);
        const chain = toks[i]?.k === 'field' && toks[i]!.v !== '.' ? fieldsOf(toks[i++]!.v) : [];
        return { t: 'var', name: t.v, fields: chain };
      }
      if (t.k === 'ident') {
        if (t.v === 'true' || t.v === 'false') return { t: 'lit', value: t.v === 'true' };
        if (t.v === 'nil') return { t: 'lit', value: null };
        if (!BUILTINS.has(t.v)) throw new TemplateError(line, `function "${t.v}" not defined`);
        return { t: 'fn', name: t.v };
      }
      if (t.v === '(') {
        let depth = 1;
        const start = i;
        while (i < toks.length && depth > 0) {
          if (toks[i]!.v === '(' && toks[i]!.k === 'op') depth++;
          if (toks[i]!.v === ')' && toks[i]!.k === 'op') depth--;
          i++;
        }
        if (depth !== 0) throw new TemplateError(line, 'unclosed left paren');
        const inner = this.commands(toks.slice(start, i - 1), line);
        const chain = toks[i]?.k === 'field' && toks[i]!.v !== '.' ? fieldsOf(toks[i++]!.v) : [];
        return { t: 'paren', pipe: inner, fields: chain };
      }
      throw new TemplateError(line, `unexpected "${t.v}" in operand`);
    };
    while (i < toks.length) {
      if (toks[i]!.k === 'op' && toks[i]!.v === '|') {
        if (args.length === 0) throw new TemplateError(line, 'missing command before |');
        cmds.push({ args });
        args = [];
        i++;
        continue;
      }
      args.push(operand());
    }
    if (args.length === 0) throw new TemplateError(line, 'missing value for command');
    cmds.push({ args });
    return { cmds, line };
  }
}

/** Go's %v of a value (what a print action shows before escaping). */
function show(v: Value): string {
  if (v === null || v === undefined) return '<no value>';
  if (Array.isArray(v)) return `[${v.map(show).join(' ')}]`;
  if (typeof v === 'object')
    return `{${Object.values(v as Record<string, Value>)
      .map(show)
      .join(' ')}}`;
  return String(v);
}

/** html/template's escaping of text-context output. */
const escapeHtml = (s: string): string =>
  s.replace(
    /[&'<>"+\0]/g,
    (c) =>
      ({ '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;', '"': '&#34;', '+': '&#43;', '\0': '\uFFFD' })[
        c
      ]!,
  );

const truth = (v: Value): boolean =>
  !(
    v === null ||
    v === undefined ||
    v === false ||
    v === 0 ||
    v === '' ||
    (Array.isArray(v) && v.length === 0)
  );

function sprintf(line: number, format: string, args: Value[]): string {
  let n = 0;
  return format.replace(/%([%sdvq])/g, (_, verb: string) => {
    if (verb === '%') return '%';
    if (n >= args.length) return `%!${verb}(MISSING)`;
    const a = args[n++];
    if (verb === 'd' && typeof a !== 'number') throw new TemplateError(line, `printf: %d of ${show(a)}`);
    return verb === 'q' ? JSON.stringify(show(a)) : show(a);
  });
}

class Runner {
  private out = '';
  private vars: Map<string, Value>[];

  constructor(data: Value) {
    this.vars = [new Map([['$', data]])];
  }

  run(nodes: Node[], dot: Value): string {
    this.walk(nodes, dot);
    return this.out;
  }

  private walk(nodes: Node[], dot: Value): void {
    for (const n of nodes) {
      if (n.t === 'text') this.out += n.text;
      else if (n.t === 'print') {
        const v = this.pipe(n.pipe, dot);
        if (!n.pipe.decl) this.out += escapeHtml(show(v));
      } else if (n.t === 'if' || n.t === 'with') {
        this.vars.push(new Map());
        const v = this.pipe(n.pipe, dot);
        if (truth(v)) this.walk(n.body, n.t === 'with' ? v : dot);
        else this.walk(n.else, dot);
        this.vars.pop();
      } else if (n.t === 'range') {
        this.vars.push(new Map());
        const v = this.pipe({ ...n.pipe, decl: undefined }, dot);
        if (!Array.isArray(v) && v !== null && v !== undefined)
          throw new TemplateError(n.pipe.line, `range can't iterate over ${show(v)}`);
        const items = (v ?? []) as Value[];
        if (items.length === 0) this.walk(n.else, dot);
        const body = n.body;
        items.forEach((item, idx) => {
          const names = n.pipe.decl?.names ?? [];
          if (names.length === 1) this.set(names[0]!, item, false);
          if (names.length === 2) {
            this.set(names[0]!, idx, false);
            this.set(names[1]!, item, false);
          }
          this.vars.push(new Map());
          this.walk(body, item);
          this.vars.pop();
        });
        this.vars.pop();
      }
    }
  }

  private set(name: string, v: Value, assign: boolean): void {
    if (assign) {
      for (let i = this.vars.length - 1; i >= 0; i--)
        if (this.vars[i]!.has(name)) {
          this.vars[i]!.set(name, v);
          return;
        }
    }
    this.vars.at(-1)!.set(name, v);
  }

  private get(name: string, line: number): Value {
    for (let i = this.vars.length - 1; i >= 0; i--)
      if (this.vars[i]!.has(name)) return this.vars[i]!.get(name);
    throw new TemplateError(line, `undefined variable "${name}"`);
  }

  private pipe(p: Pipeline, dot: Value): Value {
    let last: Value;
    let first = true;
    for (const c of p.cmds) {
      last = this.command(c, dot, p.line, first ? undefined : { value: last });
      first = false;
    }
    if (p.decl) this.set(p.decl.names[0]!, last, p.decl.assign);
    return last;
  }

  private fields(v: Value, fields: string[], line: number): Value {
    let cur = v;
    for (const f of fields) {
      if (cur === null || cur === undefined || typeof cur !== 'object' || Array.isArray(cur) || !(f in cur))
        throw new TemplateError(line, `can't evaluate field ${f} in ${show(cur)}`);
      cur = (cur as Record<string, Value>)[f];
    }
    return cur;
  }

  private operand(e: Expr, dot: Value, line: number): Value {
    switch (e.t) {
      case 'dot':
        return this.fields(dot, e.fields, line);
      case 'var':
        return this.fields(this.get(e.name, line), e.fields, line);
      case 'lit':
        return e.value;
      case 'paren':
        return this.fields(this.pipe(e.pipe, dot), e.fields, line);
      case 'fn':
        return this.call(e.name, [], line);
    }
  }

  private command(c: Command, dot: Value, line: number, piped?: { value: Value }): Value {
    const [head, ...rest] = c.args as [Expr, ...Expr[]];
    if (head.t === 'fn') {
      const args = rest.map((a) => this.operand(a, dot, line));
      if (piped) args.push(piped.value);
      return this.call(head.name, args, line);
    }
    if (rest.length > 0 || piped)
      throw new TemplateError(line, `can't give argument to non-function ${show(head)}`);
    return this.operand(head, dot, line);
  }

  private call(name: string, args: Value[], line: number): Value {
    const need = (n: number) => {
      if (args.length < n)
        throw new TemplateError(line, `wrong number of args for ${name}: want ${n} got ${args.length}`);
    };
    const cmp = (f: (a: number | string, b: number | string) => boolean) => {
      need(2);
      return f(args[0] as number | string, args[1] as number | string);
    };
    switch (name) {
      case 'and':
        need(1);
        return args.find((a) => !truth(a)) ?? args.at(-1);
      case 'or':
        need(1);
        return args.find((a) => truth(a)) ?? args.at(-1);
      case 'not':
        need(1);
        return !truth(args[0]);
      case 'len':
        need(1);
        if (typeof args[0] === 'string' || Array.isArray(args[0])) return args[0].length;
        throw new TemplateError(line, `len of ${show(args[0])}`);
      case 'index': {
        need(1);
        let cur = args[0];
        for (const k of args.slice(1)) {
          if (Array.isArray(cur) && typeof k === 'number' && k >= 0 && k < cur.length) cur = cur[k];
          else throw new TemplateError(line, `index out of range: ${show(k)}`);
        }
        return cur;
      }
      case 'eq':
        need(2);
        return args.slice(1).some((a) => a === args[0]);
      case 'ne':
        return cmp((a, b) => a !== b);
      case 'lt':
        return cmp((a, b) => a < b);
      case 'le':
        return cmp((a, b) => a <= b);
      case 'gt':
        return cmp((a, b) => a > b);
      case 'ge':
        return cmp((a, b) => a >= b);
      case 'print':
        return args.map(show).join('');
      case 'println':
        return `${args.map(show).join(' ')}\n`;
      default:
        need(1);
        return sprintf(line, String(args[0]), args.slice(1));
    }
  }
}

/** Parses a template; a TemplateError names the line of the first problem. */
export function parseGoTemplate(src: string): Node[] {
  return new Parser(lex(src)).parse();
}

/** Parses and runs a template on `data` (Go struct fields as object keys). */
export function renderGoTemplate(src: string, data: Value): string {
  return new Runner(data).run(parseGoTemplate(src), data);
}
