import type { TestProject } from 'vitest/node';
import { buildOperatorImages, type OperatorImages } from '../src/operators.js';
import { type SourceInfo, sourceInfo } from '../src/source.js';
import { summary } from '../src/summary.js';

declare module 'vitest' {
  interface ProvidedContext {
    operatorImages: OperatorImages;
    /** The commit the images were built from; a rebuild in a test must use the same one. */
    imageSource: SourceInfo;
  }
}

/**
 * Builds the four operator images once per test run into build/images (reused when nothing
 * changed since the last `make images`), and prints what `make images` prints.
 */
export default async function setup(project: TestProject): Promise<void> {
  const source = await sourceInfo();
  const result = await buildOperatorImages({
    source,
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  const how = result.images.every((i) => i.cached) ? 'warm: every image reused' : 'built';
  process.stderr.write(`${summary(result)} (${how})\n`);
  project.provide('operatorImages', result);
  project.provide('imageSource', source);
}
