import type { ImagePullPolicy } from '../api/constants.js';
import type { Placement } from '../api/placement.js';
import type { ComponentImages } from '../config/images.js';
import type { FilledSpec } from '../network/network.js';
import type { TlsSettings } from '../network/tls-profile.js';

/** Everything a component template needs besides the filled spec. */
export interface RenderContext {
  /** Namespace every namespaced object is rendered into (OPERAND_NAMESPACE). */
  namespace: string;
  images: ComponentImages;
  imagePullPolicy: ImagePullPolicy;
  infra: Placement;
  workloads: Placement;
  /** Host CNI directories (vanilla Kubernetes paths; OpenShift uses other ones). */
  cniConfDir: string;
  cniBinDir: string;
  tls: TlsSettings;
  /** cert-manager's API is served: the ipam controller gets a Certificate and an Issuer. */
  certManagerAvailable: boolean;
}

const DEFAULT_CNI_CONF_DIR = '/etc/cni/net.d';
const DEFAULT_CNI_BIN_DIR = '/opt/cni/bin';

/** The render context of a filled spec. */
export function renderContext(
  spec: FilledSpec,
  env: { namespace: string; images: ComponentImages; certManagerAvailable: boolean; tls: TlsSettings },
): RenderContext {
  return {
    namespace: env.namespace,
    images: env.images,
    imagePullPolicy: spec.imagePullPolicy,
    infra: spec.placementConfiguration.infra,
    workloads: spec.placementConfiguration.workloads,
    cniConfDir: DEFAULT_CNI_CONF_DIR,
    cniBinDir: DEFAULT_CNI_BIN_DIR,
    tls: env.tls,
    certManagerAvailable: env.certManagerAvailable,
  };
}
