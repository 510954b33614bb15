import { ConditionType } from '@stackops/lib-common/conditions';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { buildDbSyncJob } from '../../../resources/jobs.js';
import type { KeystoneApiPass } from '../context.js';
import { DB_SYNC_HASH, jobInput, runKeystoneJob } from '../run-job.js';

/** `keystone-db-sync` runs `keystone-manage db_sync` once per pod-spec hash. */
export function runDbSync(ctx: KeystoneApiPass): Promise<StepResult> {
  return runKeystoneJob(ctx, buildDbSyncJob(jobInput(ctx)), {
    hashKey: DB_SYNC_HASH,
    condition: ConditionType.DBSyncReady,
  });
}
