#!/usr/bin/env node
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { defaultOutDir } from './image-builder.js';
import { buildOperatorImages, isOperatorName, type OperatorName, operatorNames } from './operators.js';
import { sourceInfo } from './source.js';
import { summary } from './summary.js';
import { formatSeconds } from './util/format.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);
process.stdout.on('error', () => {});

function collectOperator(value: string, previous: OperatorName[] = []): OperatorName[] {
  if (!isOperatorName(value)) {
    throw new InvalidArgumentError(`one of: ${operatorNames.join(', ')}`);
  }
  return [...previous, value];
}

const program = new Command('stackops-images')
  .description("Builds the operators' OCI images with crane: no Docker engine, no pulled base image")
  .showHelpAfterError();

program
  .command('build')
  .description('build the operator images (unchanged ones are reused) and print their digests and sizes')
  .option(
    '--operator <name>',
    `only this operator (repeatable): ${operatorNames.join(', ')}`,
    collectOperator,
  )
  .option('--out <dir>', 'output folder', defaultOutDir())
  .option('--force', 'rebuild images even when their inputs are unchanged')
  .action(async (opts: { operator?: OperatorName[]; out: string; force?: boolean }) => {
    const result = await buildOperatorImages({
      outDir: opts.out,
      force: opts.force ?? false,
      progress: err,
      ...(opts.operator ? { operators: opts.operator } : {}),
    });
    say(summary(result));
  });

program
  .command('bench')
  .description(
    'build every image cold (empty folder: downloads, base, layers), again warm, and cold once more in a second folder; print times, sizes and whether the digests match',
  )
  .action(async () => {
    mkdirSync(defaultOutDir(), { recursive: true });
    const scratch = mkdtempSync(join(defaultOutDir(), '.bench-'));
    // One commit for the three builds, though others may commit meanwhile.
    const source = await sourceInfo();
    try {
      const cold = await buildOperatorImages({ outDir: join(scratch, 'a'), source, progress: err });
      const warm = await buildOperatorImages({ outDir: join(scratch, 'a'), source, progress: err });
      const again = await buildOperatorImages({ outDir: join(scratch, 'b'), source, progress: err });
      say(summary(cold));
      say('');
      say(`cold build (empty build folder): ${formatSeconds(cold.durationMs)}`);
      const reused = warm.images.filter((i) => i.cached).length;
      say(
        `warm build (nothing changed):    ${formatSeconds(warm.durationMs)} (${reused}/${warm.images.length} images reused)`,
      );
      say(`second cold build:               ${formatSeconds(again.durationMs)}`);
      say(
        `load average: ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')} on ${cpus().length} CPUs`,
      );
      const same = cold.images.every((img, i) => img.digest === again.images[i]?.digest);
      say(`digests of the two cold builds: ${same ? 'identical' : 'DIFFERENT'}`);
      if (!same) process.exitCode = 1;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

program.parseAsync().catch((error: Error) => {
  err(`stackops-images: ${error.message}`);
  process.exit(1);
});
