import { ApiError } from '../client/errors.js';
import type { Conditions } from '../conditions/index.js';
import { type Condition, ConditionType, failureMessage, Reason } from '../conditions/index.js';
import type { EventType } from '../runtime/recorder.js';

/** The step a pass was in when it threw, and the conditions as they were when it started. */
export interface FailedStep {
  name: string;
  /** The condition the step declared (`reports`). */
  reports?: string;
  before: readonly Condition[];
}

const same = (a: Condition | undefined, b: Condition): boolean =>
  a !== undefined &&
  a.status === b.status &&
  a.reason === b.reason &&
  a.severity === b.severity &&
  a.message === b.message;

/**
 * The pipeline's default record of a failed step. The condition is the one the step itself turned
 * False before throwing, else the one it declares (`reports`), else Ready: never guessed from the
 * order conditions are listed in. An API error is told by the failure table (object and field, no
 * verb or URL) on that condition; any other error keeps the words the step wrote, when it wrote
 * some. A Warning Event says the same. `readyFollows`: Ready is computed from the others at the end;
 * otherwise it is marked False too. Returns the condition's type (when Ready, the caller keeps it
 * rather than computing Ready from the others).
 */
export function markStepFailed(
  pass: { conditions: Conditions; event(type: EventType, reason: string, message: string): void },
  step: FailedStep,
  err: unknown,
  readyFollows: boolean,
): string {
  const f = failureMessage(err);
  const own = pass.conditions.list().find(
    (c) =>
      c.type !== ConditionType.Ready &&
      c.status === 'False' &&
      !same(
        step.before.find((b) => b.type === c.type),
        c,
      ),
  );
  // A declared condition this pass does not report (TopologyReady without a topologyRef) is not added.
  const declared = step.reports && pass.conditions.has(step.reports) ? step.reports : undefined;
  const type = own?.type ?? declared ?? ConditionType.Ready;
  if (!own || err instanceof ApiError) pass.conditions.markFalse(type, Reason.Error, f.severity, f.message);
  const marked = pass.conditions.get(type);
  const message = marked?.message ?? f.message;
  if (!readyFollows && type !== ConditionType.Ready)
    pass.conditions.markFalse(
      ConditionType.Ready,
      Reason.Error,
      marked?.severity ?? f.severity,
      '%s',
      message,
    );
  pass.event('Warning', f.eventReason, message);
  return type;
}
