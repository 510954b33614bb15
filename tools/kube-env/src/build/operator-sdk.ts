import { join } from 'node:path';
import { kubeEnvRoot } from '../paths.js';
import { run } from '../util/run.js';
import { downloadModule, goEnv } from './go.js';
import { ensureCachedTool } from './promtool.js';

/**
 * operator-sdk, for `operator-sdk bundle validate` of the OLM bundles (tools/olm-bundle). v1.42.2:
 * the newest whose dependencies the module proxy serves here (v1.42.3 needs an
 * ansible-operator-plugins version it refuses).
 */
export const OPERATOR_SDK_VERSION = 'v1.42.2';

const MODULE = 'github.com/operator-framework/operator-sdk';

/** `<cache>/operator-sdk-<version>/operator-sdk`: its own cache entry, as promtool's. */
function operatorSdkPath(version: string): string {
  return join(kubeEnvRoot(), `operator-sdk-${version}`, 'operator-sdk');
}

/**
 * The pinned operator-sdk, built once and then reused. Built inside its own module (downloaded
 * with `go mod download`), not with `go install mod@version`: the proxy answers 403 (not 404) for the
 * cmd/ sub-path `go install` probes first, and go gives up. The tag and version stamp are those of
 * operator-sdk's own Makefile (pure-Go OpenPGP: gpgme needs cgo).
 */
export async function ensureOperatorSdk(version: string = OPERATOR_SDK_VERSION): Promise<string> {
  return ensureCachedTool(operatorSdkPath(version), async (out, logFile) => {
    const source = await downloadModule(MODULE, version, out, logFile);
    await run(
      [
        'go',
        'build',
        '-trimpath',
        '-tags',
        'containers_image_openpgp',
        '-ldflags',
        `-s -w -X ${MODULE}/internal/version.Version=${version} -X ${MODULE}/internal/version.GitVersion=${version}`,
        '-o',
        join(out, 'operator-sdk'),
        './cmd/operator-sdk',
      ],
      // -mod=readonly: the module cache is read-only and the module's go.sum is complete.
      { cwd: source.dir, env: goEnv({ GOFLAGS: '-mod=readonly -buildvcs=false' }), logFile },
    );
  });
}
