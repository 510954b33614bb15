import { Kinds, type KubeObject } from '@stackops/lib-common/client';
import { type FilledSpec, fillDefaults, invalidConfiguration, isChangeSafe } from '../../network/network.js';
import { appliedConfigName, readAppliedConfig } from '../../resources/applied-config.js';
import { errorText, invalidSpec, type NetworkAddonsPass } from '../context.js';

/**
 * Defaults from the previously applied spec (kept in a ConfigMap, so generated values such as the
 * MAC range stay put), then the check that the change is one upstream allows.
 */
export function fillFromPreviousConfig(ctx: NetworkAddonsPass) {
  const { operatorNamespace } = ctx.settings.env;
  const cm = ctx.cache.get<KubeObject>(Kinds.ConfigMap, {
    namespace: operatorNamespace,
    name: appliedConfigName(ctx.cr.metadata.name ?? ''),
  });
  let previous: FilledSpec | undefined;
  try {
    // Only a ConfigMap this very CR wrote counts: a recreated CR starts afresh, as upstream (GC).
    const ours = cm?.metadata.ownerReferences?.some((r) => r.uid === ctx.cr.metadata.uid);
    previous = ours ? readAppliedConfig(cm) : undefined;
  } catch (err) {
    return invalidSpec(
      ctx,
      'FailedToGetPreviousConfigSpec',
      `failed to read the previously applied configuration: ${errorText(err)}`,
    );
  }
  const fromStatusOnly = !cm && ctx.previousStatus?.kubeMacPoolRange !== undefined;
  if (!cm && ctx.previousStatus?.kubeMacPoolRange)
    previous = fromStatus(ctx, ctx.previousStatus.kubeMacPoolRange);
  const filled = fillDefaults(ctx.cr.spec ?? {}, previous, ctx.settings.random);
  // Only the range is known from the status: the other previous values cannot be compared.
  if (previous && !fromStatusOnly) {
    const unsafe = isChangeSafe(previous, filled);
    if (unsafe.length)
      return invalidSpec(
        ctx,
        'FailedToGetPreviousConfigSpec',
        `not applying unsafe change: ${invalidConfiguration(unsafe)}`,
      );
  }
  ctx.filled = filled;
  return undefined;
}

/**
 * The applied-config ConfigMap is gone (deleted by hand) while the status says a range was applied:
 * the range is kept from the status (a new random one would re-address every VM's future NICs),
 * and a Warning Event says what happened. The apply step writes the ConfigMap again.
 */
function fromStatus(ctx: NetworkAddonsPass, range: { rangeStart: string; rangeEnd: string }): FilledSpec {
  const name = appliedConfigName(ctx.cr.metadata.name ?? '');
  ctx.event(
    'Warning',
    'AppliedConfigMissing',
    `ConfigMap ${ctx.settings.env.operatorNamespace}/${name} was deleted; KubeMacPool range ${range.rangeStart}-${range.rangeEnd} kept from status, ConfigMap written again`,
  );
  ctx.log.warn({ configMap: name }, 'applied-config ConfigMap missing; KubeMacPool range taken from status');
  return { kubeMacPool: { ...range } } as FilledSpec;
}
