#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { defaultOutDir } from '../image-builder.js';
import { formatSeconds } from '../util/format.js';
import { buildWorkloadImages } from './images.js';
import { debianPackages, formatWorkloadSummary } from './summary.js';

const program = new Command('stackops-workload-images')
  .description('Builds the stand-in Keystone, Placement, MariaDB and openstackclient images (as root)')
  .option('--force', 'rebuild every layer, not only those whose recipe changed')
  .option('--out <dir>', 'output folder of the images', defaultOutDir())
  .action(async (opts: { force?: boolean; out: string }) => {
    const started = Date.now();
    const result = await buildWorkloadImages({
      force: opts.force ?? false,
      images: { outDir: opts.out, force: opts.force ?? false },
    });
    const record = join(opts.out, 'workloads.json');
    writeFileSync(
      record,
      `${JSON.stringify(
        {
          images: Object.fromEntries(
            Object.values(result.images).map((i) => [
              i.image,
              {
                name: i.name,
                digest: i.built.digest,
                replaces: i.replaces,
                env: i.env,
                versions: i.versions,
              },
            ]),
          ),
          debs: debianPackages(result),
          wheels: result.layers.python.wheels,
        },
        null,
        2,
      )}\n`,
    );
    process.stdout.write(`${formatWorkloadSummary(result)}\n`);
    process.stdout.write(
      `done in ${formatSeconds(Date.now() - started)}; Debian packages and wheels: ${record}\n`,
    );
  });

await program.parseAsync();
