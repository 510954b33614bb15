import { Kinds } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import type { StepResult } from '@stackops/lib-common/pipeline';
import { buildTrustFlushCronJob } from '../../../resources/cronjob.js';
import { applyChild } from '../apply.js';
import { type KeystoneApiPass, specForPods } from '../context.js';

/** The `keystone-cron` CronJob flushing expired trusts. */
export async function ensureCronJob(ctx: KeystoneApiPass): Promise<StepResult> {
  try {
    await applyChild(
      ctx,
      Kinds.CronJob,
      buildTrustFlushCronJob(ctx.cr, specForPods(ctx), ctx.podAnnotations ?? {}),
    );
  } catch (err) {
    ctx.conditions.markError(ConditionType.CronJobReady, err);
    throw err;
  }
  ctx.conditions.markTrue(ConditionType.CronJobReady);
  return undefined;
}
