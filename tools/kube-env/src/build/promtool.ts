import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { kubeEnvRoot } from '../paths.js';
import { run } from '../util/run.js';
import { checkGo, goEnv } from './go.js';

/**
 * Prometheus' promtool, for the charts' rule tests (`promtool check rules`, `promtool test rules`).
 * Prometheus 3.x publishes its Go module as v0.3xx.y; v0.316.0 is Prometheus 3.16.0.
 */
export const PROMTOOL_VERSION = 'v0.316.0';

/**
 * Without Prometheus' service-discovery plugins (AWS, Azure, GCE, …): the rule tests never discover
 * targets, and leaving them out makes the cold build several times shorter (tools/kube-env README).
 */
const BUILD_TAGS = 'remove_all_sd';

/** `<cache>/promtool-<version>-<tags>/promtool`: its own cache entry, so the control plane's key is untouched. */
function promtoolPath(version: string = PROMTOOL_VERSION): string {
  return join(kubeEnvRoot(), `promtool-${version}-${BUILD_TAGS}`, 'promtool');
}

/** The pinned promtool, built once with `go install` (as the control plane's tools, static, no VCS stamp). */
export async function ensurePromtool(version: string = PROMTOOL_VERSION): Promise<string> {
  return ensureCachedTool(promtoolPath(version), async (out, logFile) => {
    await run(
      [
        'go',
        'install',
        '-trimpath',
        '-tags',
        BUILD_TAGS,
        '-ldflags',
        '-s -w',
        `github.com/prometheus/prometheus/cmd/promtool@${version}`,
      ],
      { cwd: out, env: goEnv({ GOBIN: out, GOFLAGS: '-buildvcs=false' }), logFile },
    );
  });
}

/**
 * `target` when it exists, else built once by `build` (which leaves the binary, named as `target`,
 * in the private folder it is given) and then reused. A build goes to a private folder and is
 * renamed into place, so runs that race each build and the last rename wins with an identical
 * binary; a killed build leaves nothing. `build.log` beside `target` gets the go commands' output.
 */
export async function ensureCachedTool(
  target: string,
  build: (out: string, logFile: string) => Promise<void>,
): Promise<string> {
  if (existsSync(target)) return target;
  await checkGo();
  const dir = join(target, '..');
  mkdirSync(dir, { recursive: true });
  const out = mkdtempSync(join(dir, 'build-'));
  try {
    await build(out, join(dir, 'build.log'));
    renameSync(join(out, basename(target)), target);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  return target;
}
