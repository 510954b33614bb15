import { invalidConfiguration, validate } from '../../network/network.js';
import { invalidSpec, type NetworkAddonsPass } from '../context.js';

/** The spec's cross-field rules the schema cannot express (upstream's validators). */
export function validateSpec(ctx: NetworkAddonsPass) {
  const problems = validate(ctx.cr.spec ?? {});
  if (problems.length === 0) return undefined;
  return invalidSpec(
    ctx,
    'FailedToValidate',
    `failed to validate NetworkConfig.Spec: ${invalidConfiguration(problems)}`,
  );
}
