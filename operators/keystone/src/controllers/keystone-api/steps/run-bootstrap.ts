import { ConditionType } from '@stackops/lib-common/conditions';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { buildBootstrapJob } from '../../../resources/jobs.js';
import type { KeystoneApiPass } from '../context.js';
import { BOOTSTRAP_HASH, jobInput, runKeystoneJob } from '../run-job.js';

/** `keystone-bootstrap` registers admin and keystone's endpoints; new URLs re-run it. */
export function runBootstrap(ctx: KeystoneApiPass): Promise<StepResult> {
  const endpoints = {
    internal: ctx.status.apiEndpoints['internal'] ?? '',
    public: ctx.status.apiEndpoints['public'] ?? '',
  };
  return runKeystoneJob(ctx, buildBootstrapJob(jobInput(ctx), endpoints), {
    hashKey: BOOTSTRAP_HASH,
    condition: ConditionType.BootstrapReady,
  });
}
