import type { KubeClient } from '@stackops/lib-common/client';
import { TlsKeys } from '@stackops/lib-common/openstack';
import type { ServiceEndpointType } from './common.js';
import { API_VERSION, KeystoneKinds } from './group.js';
import type { KeystoneAPI } from './keystone-api.js';
import type { EndpointInterface, KeystoneEndpoint, KeystoneEndpointSpec } from './keystone-endpoint.js';
import type { KeystoneService, KeystoneServiceSpec } from './keystone-service.js';

/**
 * What other operators use to talk to keystone through its CRDs (upstream api/v1beta1 helpers):
 * pure functions over objects read from a cache or a client.
 */

/** Why a KeystoneAPI could not be picked for a namespace. */
export class KeystoneAPILookupError extends Error {
  override readonly name = 'KeystoneAPILookupError';
  constructor(
    readonly reason: 'NotFound' | 'Ambiguous',
    message: string,
  ) {
    super(message);
  }
}

/** The one KeystoneAPI of a namespace, from a list of candidates (only one per namespace is supported). */
export function selectKeystoneAPI(items: readonly KeystoneAPI[], namespace: string): KeystoneAPI {
  const inNs = items.filter((i) => i.metadata.namespace === undefined || i.metadata.namespace === namespace);
  if (inNs.length > 1) {
    throw new KeystoneAPILookupError(
      'Ambiguous',
      `more than one KeystoneAPI object found in namespace ${namespace}`,
    );
  }
  const [only] = inNs;
  if (!only)
    throw new KeystoneAPILookupError('NotFound', `no KeystoneAPI object found in namespace ${namespace}`);
  return only;
}

/** Lists the namespace's KeystoneAPIs through a client and picks the one. */
export async function getKeystoneAPI(
  client: Pick<KubeClient, 'list'>,
  namespace: string,
  labelSelector?: string,
): Promise<KeystoneAPI> {
  const list = await client.list<KeystoneAPI>(KeystoneKinds.KeystoneAPI, {
    namespace,
    ...(labelSelector ? { labelSelector } : {}),
  });
  return selectKeystoneAPI(list.items, namespace);
}

/** The published URL of an endpoint type; throws `"<type> endpoint not found"` like upstream. */
export function getKeystoneEndpoint(api: KeystoneAPI, type: ServiceEndpointType): string {
  const url = api.status?.apiEndpoints?.[type];
  if (!url) throw new Error(`${type} endpoint not found`);
  return url;
}

const readyStatus = (conds: { type: string; status: string }[] | undefined): boolean =>
  conds?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Upstream `IsReady()`: the Ready condition is True. */
export const isKeystoneAPIReady = (api: KeystoneAPI): boolean => readyStatus(api.status?.conditions);

/** Ready for the current spec: Ready True and the latest generation observed (what consumers should use). */
export const isKeystoneAPIReadyForGeneration = (api: KeystoneAPI): boolean =>
  isKeystoneAPIReady(api) && api.status?.observedGeneration === api.metadata.generation;

/** Upstream `GetRegion()`: the region the deployment reported (empty until it is up). */
export const getKeystoneRegion = (api: KeystoneAPI): string => api.status?.region ?? '';

export const isBeingDeleted = (obj: { metadata: { deletionTimestamp?: string } }): boolean =>
  obj.metadata.deletionTimestamp !== undefined;

/** Where and as whom an admin client authenticates (upstream `GetAdminServiceClient`: system scope). */
export interface AdminAuthSettings {
  authUrl: string;
  username: string;
  projectName: string;
  userDomainName: 'Default';
  projectDomainName: 'Default';
  region: string;
  scope: { system: 'all' };
  password: { secretName: string; key: string };
  /**
   * The CA bundle the client trusts for an https endpoint (`tls.caBundleSecretName`, key
   * `tls-ca-bundle.pem`); absent: the runtime's default trust store. Verification is never skipped.
   */
  caBundle?: { secretName: string; key: string };
}

export function adminAuthSettings(api: KeystoneAPI): AdminAuthSettings {
  return {
    authUrl: getKeystoneEndpoint(api, 'internal'),
    username: api.spec.adminUser ?? 'admin',
    projectName: api.spec.adminProject ?? 'admin',
    userDomainName: 'Default',
    projectDomainName: 'Default',
    region: api.spec.region ?? 'regionOne',
    scope: { system: 'all' },
    password: { secretName: api.spec.secret, key: api.spec.passwordSelectors?.admin ?? 'AdminPassword' },
    ...(api.spec.tls?.caBundleSecretName
      ? { caBundle: { secretName: api.spec.tls.caBundleSecretName, key: TlsKeys.caBundle } }
      : {}),
  };
}

/** Upstream `KeystoneAPIStatusChangedPredicate`: dependants care only about the published endpoints. */
export function apiEndpointsChanged(before: KeystoneAPI, after: KeystoneAPI): boolean {
  const a = before.status?.apiEndpoints ?? {};
  const b = after.status?.apiEndpoints ?? {};
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].some((k) => a[k] !== b[k]);
}

/** Registered URLs of a KeystoneEndpoint, optionally of one interface, sorted. */
export function keystoneEndpointUrls(ep: KeystoneEndpoint, visibility?: EndpointInterface): string[] {
  return (ep.status?.endpoints ?? [])
    .filter((e) => !visibility || e.interface === visibility)
    .map((e) => e.url)
    .sort();
}

/** URLs of every KeystoneEndpoint labelled `service: <one of services>`, sorted. */
export function keystoneEndpointUrlsForServices(
  endpoints: readonly KeystoneEndpoint[],
  services: readonly string[],
  visibility?: EndpointInterface,
): string[] {
  return endpoints
    .filter((e) => services.includes(e.metadata.labels?.['service'] ?? ''))
    .flatMap((e) => keystoneEndpointUrls(e, visibility))
    .sort();
}

interface ChildArgs {
  name: string;
  namespace: string;
  labels?: Record<string, string>;
  /** The caller's own finalizer, put on the child so it outlives the caller's clean-up. */
  callerFinalizer?: string;
}

const childMeta = (a: ChildArgs) => ({
  name: a.name,
  namespace: a.namespace,
  ...(a.labels ? { labels: a.labels } : {}),
  ...(a.callerFinalizer ? { finalizers: [a.callerFinalizer] } : {}),
});

/** The KeystoneService a service operator applies (upstream `NewKeystoneService`); owner ref added on apply. */
export function desiredKeystoneService(args: ChildArgs & { spec: KeystoneServiceSpec }): KeystoneService {
  return { apiVersion: API_VERSION, kind: 'KeystoneService', metadata: childMeta(args), spec: args.spec };
}

/** The KeystoneEndpoint a service operator applies (upstream `NewKeystoneEndpoint`). */
export function desiredKeystoneEndpoint(args: ChildArgs & { spec: KeystoneEndpointSpec }): KeystoneEndpoint {
  return { apiVersion: API_VERSION, kind: 'KeystoneEndpoint', metadata: childMeta(args), spec: args.spec };
}
