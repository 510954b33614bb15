import { type EndpointInterface, EndpointInterfaces, type EndpointStatus } from '../api/keystone-endpoint.js';
import type { IdentityClient } from '../identity/client.js';
import type { Endpoint } from '../identity/types.js';
import { claim, isOwnedBy, markerAttribute, type Owner } from './ownership.js';
import type { Changes } from './service.js';

const KNOWN_INTERFACES: readonly string[] = EndpointInterfaces;

function asInterface(name: string): EndpointInterface {
  if (!KNOWN_INTERFACES.includes(name)) throw new Error(`endpoint interface ${name} not known`);
  return name as EndpointInterface;
}

export interface EndpointsSpec {
  serviceId: string;
  /** For messages: the KeystoneService name. */
  serviceName: string;
  region: string;
  /** interface → URL (spec.endpoints). */
  desired: Readonly<Record<string, string>>;
  /** interface → endpoint ID recorded in status.endpointIDs. */
  recorded: Readonly<Record<string, string>>;
  /** The KeystoneEndpoint: only endpoints whose marker names it are changed or deleted (ADR 0012). */
  owner: Owner;
  /** Endpoints without an owner may be adopted (annotation `keystone.openstack.org/adopt: "true"`). */
  adopt: boolean;
}

export interface RegisteredEndpoints {
  endpointIDs: Record<string, string>;
  /** Sorted by interface. */
  endpoints: EndpointStatus[];
}

/** Regions are created by keystone's bootstrap; an endpoint in another region needs it first. */
async function ensureRegion(identity: IdentityClient, region: string, changes: Changes): Promise<void> {
  if (await identity.regions.get(region)) return;
  await identity.regions.create({ id: region });
  changes.push(`created region ${region}`);
}

const listFor = (identity: IdentityClient, spec: EndpointsSpec, iface: EndpointInterface) =>
  identity.endpoints.list({ service_id: spec.serviceId, interface: iface, region_id: spec.region });

/** Deletes this owner's endpoints of one interface of the service in the region, and the recorded one if it is its own. */
async function deleteInterface(
  identity: IdentityClient,
  spec: EndpointsSpec,
  iface: EndpointInterface,
  changes: Changes,
  why: string,
): Promise<void> {
  const listed = spec.serviceId ? await listFor(identity, spec, iface) : [];
  const recordedId = spec.recorded[iface];
  const recorded =
    recordedId && !listed.some((e) => e.id === recordedId)
      ? await identity.endpoints.get(recordedId)
      : undefined;
  for (const ep of [...listed, ...(recorded ? [recorded] : [])]) {
    if (!isOwnedBy(ep, spec.owner)) continue;
    if (await identity.endpoints.delete(ep.id)) changes.push(`deleted ${iface} endpoint ${ep.id}${why}`);
  }
}

/**
 * A recorded endpoint of this owner that now belongs elsewhere (the service was re-created, the
 * region changed) is removed, so the listing below only sees endpoints of this service in this region.
 */
async function dropMovedEndpoint(
  identity: IdentityClient,
  spec: EndpointsSpec,
  iface: EndpointInterface,
  changes: Changes,
): Promise<void> {
  const id = spec.recorded[iface];
  if (!id) return;
  const ep = await identity.endpoints.get(id);
  if (!ep || (ep.service_id === spec.serviceId && (ep.region_id ?? '') === spec.region)) return;
  if (!isOwnedBy(ep, spec.owner)) return;
  await identity.endpoints.delete(id);
  changes.push(`deleted ${iface} endpoint ${id} (moved to another service or region)`);
}

/**
 * Exactly one endpoint of the interface, owned by this KeystoneEndpoint, with the wanted URL: an
 * endpoint of another CR, or one without an owner (unless adopted), is refused (NotOwnedError); a
 * deleted one is re-created and a URL changed by hand is put back.
 */
async function ensureInterface(
  identity: IdentityClient,
  spec: EndpointsSpec,
  iface: EndpointInterface,
  url: string,
  changes: Changes,
): Promise<Endpoint> {
  await dropMovedEndpoint(identity, spec, iface, changes);
  const found = await listFor(identity, spec, iface);
  const claims = found.map((ep) =>
    claim(`${iface} endpoint ${ep.id} of service "${spec.serviceName}"`, ep, spec.owner, spec.adopt),
  );
  if (found.length > 1) {
    throw new Error(`multiple endpoints registered for service:${spec.serviceName} type: ${iface}`);
  }
  const [existing] = found;
  if (!existing) {
    await ensureRegion(identity, spec.region, changes);
    const created = await identity.endpoints.create({
      service_id: spec.serviceId,
      interface: iface,
      url,
      region_id: spec.region,
      enabled: true,
      ...markerAttribute(spec.owner),
    });
    const recorded = spec.recorded[iface];
    const why = recorded && recorded !== created.id ? ` (${recorded} was deleted from Keystone)` : '';
    changes.push(`created ${iface} endpoint ${created.id} ${url}${why}`);
    return created;
  }
  const mark = claims[0] === 'mark';
  if (existing.url === url && !mark) return existing;
  const updated = await identity.endpoints.update(existing.id, {
    ...(existing.url === url ? {} : { url }),
    ...(mark ? markerAttribute(spec.owner) : {}),
  });
  if (mark && !isOwnedBy(existing, spec.owner)) changes.push(`adopted ${iface} endpoint ${existing.id}`);
  if (existing.url !== url) {
    changes.push(`updated ${iface} endpoint ${existing.id} to ${url} (it was ${existing.url})`);
  }
  return updated;
}

/**
 * Makes Keystone's endpoints of the service in the region match `desired`: interfaces no longer
 * wanted are deleted; for each wanted interface exactly one endpoint exists with the wanted URL.
 * What is registered is filled into `into` as it goes, so a caller still knows it after a failure.
 */
export async function reconcileCatalogEndpoints(
  identity: IdentityClient,
  spec: EndpointsSpec,
  changes: Changes,
  into: RegisteredEndpoints = { endpointIDs: {}, endpoints: [] },
): Promise<RegisteredEndpoints> {
  const wanted = Object.keys(spec.desired).sort().map(asInterface);
  for (const iface of Object.keys(spec.recorded).sort()) {
    if (!wanted.includes(iface as EndpointInterface)) {
      await deleteInterface(identity, spec, asInterface(iface), changes, ' (interface no longer wanted)');
    }
  }
  for (const iface of wanted) {
    const ep = await ensureInterface(identity, spec, iface, spec.desired[iface] ?? '', changes);
    into.endpointIDs[iface] = ep.id;
    into.endpoints.push({ interface: iface, url: ep.url, id: ep.id });
  }
  return into;
}

/** Deletes this owner's endpoints of every interface in the spec or recorded in the status. */
export async function deleteCatalogEndpoints(
  identity: IdentityClient,
  spec: EndpointsSpec,
  changes: Changes,
): Promise<void> {
  const interfaces = new Set([...Object.keys(spec.desired), ...Object.keys(spec.recorded)]);
  for (const iface of [...interfaces].sort()) {
    if (!KNOWN_INTERFACES.includes(iface)) continue;
    await deleteInterface(identity, spec, iface as EndpointInterface, changes, '');
  }
}
