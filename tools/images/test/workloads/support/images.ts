import {
  buildWorkloadImages,
  workloadImages as definitions,
  formatWorkloadSummary,
  type WorkloadImage,
  type WorkloadImages,
} from '../../../src/workloads/index.js';
import type { ContainerSpec } from './sandbox.js';

let building: Promise<WorkloadImages> | undefined;

/**
 * The workload images, built once per test file (from the layer cache when the recipes are
 * unchanged: a warm build only hashes recipes and checks the image outputs). Prints what a build prints.
 */
export function workloadImages(): Promise<WorkloadImages> {
  building ??= buildWorkloadImages({ progress: (line) => process.stderr.write(`${line}\n`) }).then((r) => {
    process.stderr.write(`${formatWorkloadSummary(r)}\n`);
    return r;
  });
  return building;
}

type Overrides = Omit<ContainerSpec, 'layers' | 'command'> & {
  /** A pod's `command` (replaces the image's entrypoint and cmd). */
  command?: readonly string[];
  /** A pod's `args` (replace the image's cmd). */
  args?: readonly string[];
};

/** A container of `image` as its config runs it, with a pod's overrides (command, args, user, env). */
export function fromImage(image: WorkloadImage, spec: Overrides): ContainerSpec {
  const config = definitions[image.image].config;
  const entrypoint = spec.command ?? config.entrypoint ?? [];
  const args = spec.args ?? (spec.command ? [] : (config.cmd ?? []));
  const [uid = 0, gid = 0] = (config.user ?? '0:0').split(':').map(Number);
  return {
    ...spec,
    layers: image.trees,
    command: [...entrypoint, ...args],
    env: { ...config.env, ...spec.env },
    uid: spec.uid ?? uid,
    gid: spec.gid ?? spec.uid ?? gid,
    workingDir: spec.workingDir ?? config.workdir ?? '/',
  };
}
