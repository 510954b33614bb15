import { stop } from '@stackops/lib-common/pipeline';
import { OPERATOR_CONFIG_NAME } from '../../api/constants.js';
import type { NetworkAddonsPass } from '../context.js';

/** Only the NetworkAddonsConfig named `cluster` is acted on; another one is told so in its status. */
export function ignoreOtherConfigs(ctx: NetworkAddonsPass) {
  if (ctx.cr.metadata.name === OPERATOR_CONFIG_NAME) return undefined;
  ctx.ignored = true;
  return stop();
}
