import type { KubeObject } from '../client/types.js';
import { Conditions, Reason, Severity } from '../conditions/index.js';
import type { Pass } from './pipeline.js';
import { type Step, stop } from './step.js';

export interface SpecCheck<C> {
  /** Every error of the spec itself (none may need another object), each naming its field. */
  problems: (ctx: C) => readonly string[];
  /** The condition that carries them (False, severity Error); a message a dependency left there is kept after them. */
  condition: string;
  /**
   * The steps that look at the objects the spec names (Secrets, a cache instance, …), run when the
   * spec is wrong so that what they wait on is reported beside its errors. Their stops are ignored
   * and so are their errors (logged): each reports on its own condition. They must not build anything
   * from the spec.
   */
  dependencies?: readonly Step<C>[];
}

/**
 * The first step of a pass: the spec's own errors, all in one message, before any step waits on
 * another object, so a user learns them at once instead of after each wait is over. With errors the
 * dependency checks run too (their problems beside, not instead), a Warning Event `InvalidSpec`
 * says the errors when they changed, and the pass stops: nothing is built from a spec known to be
 * wrong. A change to the object wakes it again.
 */
export function checkSpecFirst<T extends KubeObject, C extends Pass<T, object>>(
  check: SpecCheck<C>,
): Step<C> {
  return async function checkSpec(ctx: C) {
    const problems = check.problems(ctx);
    if (problems.length === 0) return undefined;
    for (const dependency of check.dependencies ?? []) {
      try {
        await dependency(ctx);
      } catch (err) {
        ctx.log.debug(
          { step: dependency.name, err: err instanceof Error ? err.message : String(err) },
          'dependency check failed beside spec errors',
        );
      }
    }
    const message = `Invalid spec: ${problems.join('; ')}`;
    const left = ctx.conditions.get(check.condition);
    const beside = left?.status === 'False' && left.message ? `; ${left.message}` : '';
    ctx.conditions.markFalse(check.condition, Reason.Error, Severity.Error, '%s%s', message, beside);
    const before = Conditions.from(
      (ctx.previousStatus as { conditions?: unknown } | undefined)?.conditions,
    ).get(check.condition);
    if (before?.message !== ctx.conditions.get(check.condition)?.message)
      ctx.event('Warning', 'InvalidSpec', message);
    return stop();
  };
}

/**
 * What is wrong with a Secret's key or a mounted file's name (the API server's rule for both):
 * letters, digits, `-`, `_` and `.`, at most 253, not `.` and not `..`-led; or undefined.
 */
export function secretKeyProblem(name: string): string | undefined {
  if (name.length > 253 || !/^[-._a-zA-Z0-9]+$/.test(name))
    return `"${name}" may hold only letters, digits, -, _ and . (at most 253)`;
  if (name === '.' || name.startsWith('..')) return `"${name}" may not be . or start with ..`;
  return undefined;
}
