import { Command } from 'commander';
import { runDemo } from './demo.js';

const program = new Command('stackops-demo')
  .description(
    'Start a local control plane with a real node, install the umbrella chart (the four operators as pods, from the images built here) and converge the upstream examples',
  )
  .option('--exit', 'stop everything after the summary instead of running until Ctrl-C', false)
  .option('--name <name>', 'local cluster name', 'stackops-demo')
  .option(
    '--replace',
    'stop and replace a running cluster of the same name (without it the demo refuses to touch it)',
    false,
  )
  .option(
    '--local-operators',
    "run the operators as local processes (as their charts' ServiceAccounts) instead of pods on a real node",
    false,
  )
  .option(
    '--real-nodes <n>',
    'real nodes (kubelet+containerd each); the operators and OpenStack pods spread over them (each further node ~190 MiB)',
    '1',
  )
  .option('--timeout <seconds>', 'how long to wait for every resource to be Ready', '600')
  .parse();

const opts = program.opts<{
  exit: boolean;
  name: string;
  replace: boolean;
  localOperators: boolean;
  realNodes: string;
  timeout: string;
}>();
try {
  const outcome = await runDemo({
    exit: opts.exit,
    clusterName: opts.name,
    replace: opts.replace,
    localOperators: opts.localOperators,
    realNodes: Number(opts.realNodes),
    timeoutMs: Number(opts.timeout) * 1000,
  });
  process.exit(outcome.allDone ? 0 : 1);
} catch (err) {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
