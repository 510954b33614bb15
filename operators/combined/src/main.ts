#!/usr/bin/env node
import { baselineCompilersOnly, operatorUsage, runOperators } from '@stackops/lib-common/runtime';
import { OPERATORS, OPERATORS_ENV, selectOperators } from './select.js';

const NAME = 'stackops-operators';

function usage(): string {
  return operatorUsage({
    name: NAME,
    summary: `Runs several stackops operators in one process: one API-server connection, shared informers,
one /metrics, /healthz and /readyz; each operator keeps its own Lease (--leader-elect), field
manager, Events and log name.`,
    flags: (common) => [
      {
        flag: '--operators=a,b',
        help: [`which to run: ${Object.keys(OPERATORS).join(', ')} (default all)`],
        env: OPERATORS_ENV,
      },
      ...common,
    ],
    epilog: Object.values(OPERATORS)
      .map((o) => `${o.name}: ${o.epilog ?? 'no settings of its own\n'}`)
      .join('\n'),
  });
}

const argv = process.argv.slice(2);
if (argv.includes('--help') || argv.includes('-h')) process.stdout.write(usage());
else {
  try {
    const selected = selectOperators(argv, process.env);
    await runOperators(
      { name: NAME, operators: selected.operators },
      {
        argv: selected.argv,
        env: process.env,
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
        exit: (code) => process.exit(code),
      },
    );
    // Once started: a built-in module node loads after this compiles from source (ADR 0056, 0057).
    baselineCompilersOnly();
  } catch (err) {
    process.stderr.write(`${NAME}: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
