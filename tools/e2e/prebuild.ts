/**
 * What the e2e lane builds on a machine without caches, built ahead of it: `make test` starts this
 * in the background while lint, typecheck and the control plane's build run, so that minutes of Go
 * and image builds overlap them instead of lengthening the e2e lane. The tests call the same
 * functions and find everything cached; anything this fails to build, they build (and report)
 * themselves. Run by node as it is (type stripping): `node tools/e2e/prebuild.ts`.
 */
import { buildNetworkImages } from '@stackops/images/network';
import { buildWorkloadImages } from '@stackops/images/workloads';
import { ensureBinary, ensurePromtool } from '@stackops/kube-env';
import { previousRelease, readPin } from './test/upgrade/previous-release.ts';

const started = Date.now();
const at = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s`;
const progress = (line: string) => process.stdout.write(`[prebuild ${at()}] ${line}\n`);

const step = async (name: string, body: () => Promise<unknown>): Promise<boolean> => {
  const t0 = Date.now();
  try {
    await body();
    progress(`${name}: ready after ${((Date.now() - t0) / 1000).toFixed(1)}s`);
    return true;
  } catch (error) {
    progress(`${name}: FAILED (the tests that need it will build it again): ${(error as Error).message}`);
    return false;
  }
};

// Two chains beside the control plane's build. The images need its crane, which it builds first.
const results = await Promise.all([
  // Debian packages and wheels (downloads mostly), then promtool from Go modules.
  (async () => [
    await step('workload images', () => buildWorkloadImages({ progress })),
    await step('promtool', () => ensurePromtool()),
  ])(),
  (async () => [
    await step('network images', () => buildNetworkImages({ progress })),
    // The release's own image build waits for the whole control-plane build (its kube-env locks
    // the cache until then); its packages' build runs before that.
    await step('previous release (upgrade test)', async () =>
      previousRelease(readPin(), await ensureBinary('helm', { progress }), progress),
    ),
  ])(),
]);
const ok = results.flat().every(Boolean);
progress(ok ? 'done' : 'done, with failures above');
process.exitCode = ok ? 0 : 1;
