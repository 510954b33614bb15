import { selectTlsSettings } from '../../network/tls-profile.js';
import { appliedConfigMap } from '../../resources/applied-config.js';
import { withOperatorLabels } from '../../resources/labels.js';
import { type RenderedObject, renderComponents } from '../../resources/render.js';
import { renderContext } from '../../resources/render-context.js';
import { errorText, type NetworkAddonsPass, retryableFailure } from '../context.js';

/** The applied-config ConfigMap first, then every enabled component, labelled for this operator version. */
export function renderObjects(ctx: NetworkAddonsPass) {
  const { env, certManagerAvailable } = ctx.settings;
  const filled = ctx.filled;
  if (!filled) throw new Error('renderObjects runs after fillFromPreviousConfig');
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
