import { Command } from 'commander';
import { runDemo } from './demo.js';

const program = new Command('stackops-demo')
  .description(
    'Start a local control plane, install the umbrella chart, run the four operators and converge the upstream examples',
  )
  .option('--exit', 'stop everything after the summary instead of running until Ctrl-C', false)
  .option('--name <name>', 'local cluster name', 'stackops-demo')
  .option(
    '--replace',
    'stop and replace a running cluster of the same name (without it the demo refuses to touch it)',
    false,
  )
  .option('--timeout <seconds>', 'how long to wait for every resource to be Ready', '600')
  .parse();

const opts = program.opts<{ exit: boolean; name: string; replace: boolean; timeout: string }>();
try {
  const outcome = await runDemo({
    exit: opts.exit,
    clusterName: opts.name,
    replace: opts.replace,
    timeoutMs: Number(opts.timeout) * 1000,
  });
  process.exit(outcome.allDone ? 0 : 1);
} catch (err) {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
