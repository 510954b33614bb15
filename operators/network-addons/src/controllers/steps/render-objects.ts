import { crdNameOf, optionalKindServed } from '@stackops/lib-common/runtime';
import { selectTlsSettings } from '../../network/tls-profile.js';
import { appliedConfigMap } from '../../resources/applied-config.js';
import { CERT_MANAGER_KINDS, RENDERED_KINDS } from '../../resources/kinds.js';
import { withOperatorLabels } from '../../resources/labels.js';
import { type RenderedObject, renderComponents } from '../../resources/render.js';
import { renderContext } from '../../resources/render-context.js';
import { errorText, type NetworkAddonsPass, retryableFailure } from '../context.js';

/**
 * Whether cert-manager's API is served, as the controller's watches of its two CRDs know it (they
 * follow an install or a removal while the operator runs); undefined while either is not known.
 */
function certManagerServed(ctx: NetworkAddonsPass): boolean | undefined {
  const served = CERT_MANAGER_KINDS.map((kind) => optionalKindServed(ctx.cache, kind));
  return served.includes(undefined) ? undefined : served.every(Boolean);
}

/** The applied-config ConfigMap first, then every enabled component, labelled for this operator version. */
export function renderObjects(ctx: NetworkAddonsPass) {
  const { env } = ctx.settings;
  const filled = ctx.filled;
  if (!filled) throw new Error('renderObjects runs after fillFromPreviousConfig');
  const certManager = certManagerServed(ctx);
  // Only the ipam controller renders cert-manager's kinds: without it, not knowing yet changes nothing.
  if (certManager === undefined && filled.kubevirtIpamController)
    throw retryableFailure(
      'FailedToRender',
      `failed to render kubevirtIpamController: not known yet whether cert-manager's API is served (CRDs ${CERT_MANAGER_KINDS.map(crdNameOf).join(', ')}); retrying`,
    );
  const certManagerAvailable = certManager ?? false;
  ctx.kinds = certManagerAvailable ? [...RENDERED_KINDS, ...CERT_MANAGER_KINDS] : RENDERED_KINDS;
  try {
    const renderCtx = renderContext(filled, {
      namespace: env.operandNamespace,
      images: env.images,
      certManagerAvailable,
      tls: selectTlsSettings(filled.tlsSecurityProfile),
    });
    const rendered: RenderedObject[] = [
      {
        component: 'operator',
        object: appliedConfigMap(ctx.cr.metadata.name ?? '', env.operatorNamespace, filled),
      },
      ...renderComponents(filled, renderCtx),
    ];
    ctx.rendered = rendered.map((r) => ({
      ...r,
      object: withOperatorLabels(r.object, ctx.cr.metadata.labels ?? {}, env.operatorVersion),
    }));
  } catch (err) {
    throw retryableFailure('FailedToRender', `failed to render ${errorText(err)}`, err);
  }
  return undefined;
}
