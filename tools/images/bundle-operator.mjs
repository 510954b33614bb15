#!/usr/bin/env node
// Bundles an operator's src/main.ts into bundle/operator.mjs, started by bundle/main.mjs (what the
// images and tools/bench run) with V8's code for its start-up files read from bundle/compile-cache
// (ADR 0067), from the operator's package directory: `node ../../tools/images/bundle-operator.mjs`.
// What the esbuild command line cannot do, each measured (ADR 0026, 0057, 0063):
// - Node's built-in modules are required, not imported. An ESM `import` of a built-in builds its
//   namespace from every export, which runs the lazy getters: `node:http` alone then loads undici
//   (WebSocket, fetch) and http2, `node:crypto` webcrypto, `node:fs` the stream classes. −3 MiB RSS.
// - Code reached only through `import()` goes to chunks (bundle/chunks/) read when imported:
//   @kubernetes/client-node (kubeconfig plugins, 1.6 MB of the 2.6 MB) is no longer compiled and
//   kept in memory by every run. −6 MiB RSS, and less to parse at start-up.
// - Packages reached only through options the operators never set are left out, and the start-up
//   files are checked for what belongs in a chunk or should not be bundled whole (below).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

const hostRequire = createRequire(import.meta.url);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * Resolves each built-in to a module that requires it. For a CommonJS file (a package's
 * `require`), a one-line CommonJS module. For our ES modules, an ES module that exports the
 * built-in's plain values by name: a CommonJS one was copied into a new object at every file that
 * imports it (esbuild's `__toESM`: 37 copies, ~1700 getters, ~3 ms of every start). Accessors
 * (`fs.promises`, `crypto.webcrypto`) are not exported by name, so no lazy getter runs at
 * start-up: import the module's default export for those.
 */
const requireBuiltins = {
  name: 'require-builtins',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!builtins.has(args.path) || args.namespace.startsWith('builtin')) return undefined;
      return args.kind === 'require-call'
        ? { path: args.path, namespace: 'builtin-cjs' }
        : { path: args.path, namespace: 'builtin', sideEffects: false };
    });
    b.onResolve({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /.*/, namespace: 'builtin' }, (args) => ({ path: args.path, external: true }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-cjs' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
      const mod = hostRequire(args.path);
      const names = Object.getOwnPropertyNames(mod).filter(
        (k) =>
          k !== 'default' && IDENTIFIER.test(k) && 'value' in (Object.getOwnPropertyDescriptor(mod, k) ?? {}),
      );
      return {
        contents: [
          `const m = require(${JSON.stringify(args.path)});`,
          'export default m;',
          ...names.map((k) => `export const ${k} = m.${k};`),
        ].join('\n'),
        loader: 'js',
      };
    });
  },
};

/**
 * Packages a library requires for an option the operators never turn on, replaced by a module that
 * throws, naming the option, if that code is ever reached. Not compiling and running them saves
 * ~5 ms of every start.
 */
const UNUSED_OPTIONS = {
  // prom-client's exemplars (`enableExemplars`), read in process_cpu_seconds_total's collect().
  '@opentelemetry/api': 'prom-client exemplars (enableExemplars)',
  // pino's worker-thread transports (`transport`, `pino.transport()`).
  'thread-stream': 'pino transports (transport)',
};
const stubUnusedOptions = {
  name: 'stub-unused-options',
  setup(b) {
    const names = Object.keys(UNUSED_OPTIONS).map((n) => n.replace(/[/.@-]/g, '\\$&'));
    b.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) => ({
      path: args.path,
      namespace: 'unused-option',
    }));
    b.onLoad({ filter: /.*/, namespace: 'unused-option' }, (args) => {
      const message = `${UNUSED_OPTIONS[args.path]}: not in this bundle (${args.path} is left out by tools/images/bundle-operator.mjs)`;
      return {
        contents: `const fail = () => { throw new Error(${JSON.stringify(message)}); };
module.exports = new Proxy(function unavailable() { fail(); }, { get: fail, construct: fail, apply: fail });`,
        loader: 'js',
      };
    });
  },
};

rmSync('bundle', { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { operator: 'src/main.ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  outdir: 'bundle',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Names kept for stack traces; ASCII so V8 stores the source one byte per character.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  charset: 'ascii',
  banner: { js: "import{createRequire}from'node:module';const require=createRequire(import.meta.url);" },
  plugins: [requireBuiltins, stubUnusedOptions],
  logLevel: 'warning',
  metafile: true,
});

// `charset: 'ascii'` escapes strings and identifiers but leaves regular expression literals as
// written: one character past Latin-1 anywhere in a file makes V8 keep its whole source as two-byte
// text (twice the memory, in every process). Refuse such a bundle, naming the place.
const pastLatin1 = (text) => {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return i;
  return -1;
};
// `localeCompare` loads ICU's collator on its first call: ~3 MiB more in a long-running process and
// 8–14 ms of CPU in its first reconcile (ADR 0026). Our sorts compare code units.
for (const file of readdirSync('bundle', { recursive: true, encoding: 'utf8' })) {
  if (!file.endsWith('.mjs')) continue;
  const text = readFileSync(join('bundle', file), 'utf8');
  const collator = text.indexOf('localeCompare');
  if (collator >= 0) {
    console.error(
      `bundle/${file}: localeCompare, near: ${text.slice(Math.max(0, collator - 60), collator + 30)}`,
    );
    console.error("compare code units instead (a < b ? -1 : a > b ? 1 : 0): it loads ICU's collator");
    process.exit(1);
  }
  const at = pastLatin1(text);
  if (at < 0) continue;
  const code = text.charCodeAt(at).toString(16).toUpperCase();
  console.error(
    `bundle/${file}: U+${code} is past Latin-1, near: ${text.slice(Math.max(0, at - 60), at + 20)}`,
  );
  console.error('write it as an escape (\\u....) in the source: V8 would hold this file as two-byte text');
  process.exit(1);
}

// What the operator compiles before it can be ready: main.mjs and the chunks it imports statically,
// not those reached through `import()`. Packages only a reconcile or a kubeconfig file needs stay
// out of it: the `yaml` package alone cost 12-19 ms of CPU at every start (ADR 0057).
const LOADED_ON_USE = ['yaml', 'js-yaml', '@kubernetes/client-node'];
const startUp = new Set();
const visit = (file) => {
  if (startUp.has(file)) return;
  startUp.add(file);
  for (const i of metafile.outputs[file]?.imports ?? []) if (i.kind === 'import-statement') visit(i.path);
};
visit('bundle/operator.mjs');
// `import()` of a CommonJS module gives the bundle only its default export, where node and the
// tests give its named exports too: import an ES module that re-exports them instead.
for (const [file, out] of Object.entries(metafile.outputs)) {
  if (!out.entryPoint || metafile.inputs[out.entryPoint]?.format !== 'cjs') continue;
  console.error(`${file}: import() of the CommonJS module ${out.entryPoint}`);
  console.error('import() an ES module that re-exports what is needed (as @stackops/lib-common/yaml does)');
  process.exit(1);
}
// TypeBox's `Type` object holds every builder (90 KB, evaluated at start-up); its builders imported
// as a namespace (`import * as Type from '@sinclair/typebox/type'`) bring only those used (15 KB).
const TYPE_BUILDER = '@sinclair/typebox/build/esm/type/type/';
for (const file of startUp) {
  for (const input of Object.keys(metafile.outputs[file]?.inputs ?? {})) {
    if (input.includes(TYPE_BUILDER)) {
      console.error(`${file}: ${input}: TypeBox's whole \`Type\` builder is bundled`);
      console.error("import TypeBox's builders as `import * as Type from '@sinclair/typebox/type'`");
      process.exit(1);
    }
    const pkg = LOADED_ON_USE.find((p) => input.includes(`node_modules/${p}/`));
    if (!pkg) continue;
    console.error(`${file}: ${input} is compiled at start-up (operator.mjs imports this file statically)`);
    console.error(`import ${pkg} with \`await import('${pkg}')\` where it is used (ADR 0057)`);
    process.exit(1);
  }
}

// The entry point: node's compile cache on bundle/compile-cache, then the operator. With V8's code
// for the start-up files read from there, a start does not parse and compile them again: the
// combined bundle's module loading 100 → 80 ms of CPU, −2 MiB RSS (ADR 0067). `--help` loads exactly those files.
// The images build their own cache the same way (tools/images/src/compile-cache.ts).
writeFileSync(
  'bundle/main.mjs',
  `#!/usr/bin/env node
import { enableCompileCache } from 'node:module';
enableCompileCache({ directory: \`\${import.meta.dirname}/compile-cache\`, portable: true });
await import('./operator.mjs');
`,
  { mode: 0o755 },
);
execFileSync(process.execPath, ['bundle/main.mjs', '--help'], { stdio: 'ignore' });
