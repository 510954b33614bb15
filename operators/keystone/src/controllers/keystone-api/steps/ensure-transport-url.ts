import { isNotFound, Kinds, type KubeObject } from '@stackops/lib-common/client';
import { ConditionType } from '@stackops/lib-common/conditions';
import { ExternalKinds, type TransportURL } from '@stackops/lib-common/external';
import { applyOwned, type SecretObject, secretValue } from '@stackops/lib-common/objects';
import { type StepResult, stop } from '@stackops/lib-common/pipeline';
import { notificationsCluster } from '../../../config/spec.js';
import { KeystoneNames, keystoneServiceLabels } from '../../../resources/names.js';
import { type KeystoneApiPass, RECHECK_AFTER_MS } from '../context.js';

type TransportURLObject = TransportURL & KubeObject;

/** The TransportURL Secret's keys (infra-operator's). */
const TRANSPORT_URL_KEY = 'transport_url';
const QUORUM_QUEUES_KEY = 'quorumqueues';

function desiredTransportUrl(ctx: KeystoneApiPass, cluster: string): TransportURLObject {
  const bus = ctx.spec.notificationsBus;
  return {
    apiVersion: `${ExternalKinds.TransportURL.group}/${ExternalKinds.TransportURL.version}`,
    kind: ExternalKinds.TransportURL.kind,
    metadata: {
      name: KeystoneNames.transportUrl(ctx.cr),
      namespace: ctx.cr.metadata.namespace ?? '',
      labels: keystoneServiceLabels(ctx.cr),
    },
    spec: {
      rabbitmqClusterName: cluster,
      ...(bus?.user ? { username: bus.user } : {}),
      ...(bus?.vhost ? { vhost: bus.vhost } : {}),
    },
  };
}

async function deleteOwnedTransportUrl(ctx: KeystoneApiPass, namespace: string): Promise<void> {
  const ref = { name: KeystoneNames.transportUrl(ctx.cr), namespace };
  try {
    const current = await ctx.client.get<TransportURLObject>(ExternalKinds.TransportURL, ref);
    const owned = current?.metadata.ownerReferences?.some(
      (o) => o.controller && o.uid === ctx.cr.metadata.uid,
    );
    if (current && owned)
      await ctx.client.delete(ExternalKinds.TransportURL, ref, {
        preconditions: { uid: current.metadata.uid ?? '' },
      });
  } catch (err) {
    // The CRD went away with the TransportURLs: nothing left to delete.
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Notifications (`notificationsBus`, or the deprecated `rabbitMqClusterName`), as upstream: an
 * infra-operator TransportURL `<name>-keystone-transport` owned by the KeystoneAPI; until its
 * `status.secretName` is set (and that Secret exists) RabbitMqTransportURLReady is Requested and the
 * pass waits (the owned TransportURL is watched); then `status.transportURLSecret` names the Secret,
 * whose `transport_url` and `quorumqueues` feed `[oslo_messaging_notifications]` and
 * `[oslo_messaging_rabbit]`. Neither field set: no TransportURL (the one made before is deleted), no
 * condition, nothing rendered.
 */
export async function ensureTransportUrl(ctx: KeystoneApiPass): Promise<StepResult> {
  const cluster = notificationsCluster(ctx.spec);
  const namespace = ctx.cr.metadata.namespace ?? '';
  ctx.notifications = undefined;
  if (!cluster) {
    // Notifications were on in the last pass: the TransportURL they used goes (once; none is looked
    // for otherwise, so a KeystoneAPI without notifications costs no request here).
    const previous = ctx.previousStatus;
    if (
      previous?.transportURLSecret ||
      previous?.conditions?.some((c) => c.type === ConditionType.RabbitMqTransportURLReady)
    ) {
      await deleteOwnedTransportUrl(ctx, namespace);
    }
    ctx.status.transportURLSecret = undefined;
    return undefined;
  }
  let live: TransportURLObject;
  try {
    const desired = desiredTransportUrl(ctx, cluster);
    const current = await ctx.client.get<TransportURLObject>(ExternalKinds.TransportURL, {
      name: desired.metadata.name ?? '',
      namespace,
    });
    live = (await applyOwned(ctx.client, ctx.cr, ExternalKinds.TransportURL, desired, { current })).object;
  } catch (err) {
    // 404 on the kind itself: infra-operator's CRD is not installed.
    ctx.conditions.markError(
      ConditionType.RabbitMqTransportURLReady,
      isNotFound(err) ? 'the TransportURL CRD (infra-operator) is not installed' : err,
    );
    if (isNotFound(err)) return stop(RECHECK_AFTER_MS);
    throw err;
  }
  const secretName = live.status?.secretName;
  if (!secretName) {
    ctx.conditions.markRequested(ConditionType.RabbitMqTransportURLReady);
    return stop(RECHECK_AFTER_MS);
  }
  ctx.status.transportURLSecret = secretName;
  const secret = await ctx.client.get<SecretObject>(Kinds.Secret, { name: secretName, namespace });
  if (!secret) {
    ctx.conditions.markRequested(ConditionType.RabbitMqTransportURLReady);
    return stop(RECHECK_AFTER_MS);
  }
  const transportUrl = secretValue(secret, TRANSPORT_URL_KEY);
  if (!transportUrl) {
    ctx.conditions.markError(
      ConditionType.RabbitMqTransportURLReady,
      `field '${TRANSPORT_URL_KEY}' not found in secret/${secretName}`,
    );
    return stop(RECHECK_AFTER_MS);
  }
  ctx.notifications = {
    transportUrl,
    quorumQueues: secretValue(secret, QUORUM_QUEUES_KEY) === 'true',
  };
  ctx.conditions.markTrue(ConditionType.RabbitMqTransportURLReady);
  return undefined;
}
