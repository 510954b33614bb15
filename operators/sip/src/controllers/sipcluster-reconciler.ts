import { failureMessage, falseCondition } from '@stackops/lib-common/conditions';
import { pipeline } from '@stackops/lib-common/pipeline';
import { ReconcileError, type Reconciler } from '@stackops/lib-common/runtime';
import { CONDITION_READY, SIP_FINALIZER } from '../api/constants.js';
import { type SIPCluster, SIPClusterKind } from '../api/kinds.js';
import type { SIPClusterStatus } from '../api/sipcluster.js';
import type { ServiceImages } from '../config/images.js';
import type { SIPClusterPass } from './context.js';
import { setReady, sipClusterStatus } from './status.js';
import { checkSpec } from './steps/check-spec.js';
import { deployServices } from './steps/deploy-services.js';
import { gatherHosts } from './steps/gather-hosts.js';
import { labelHosts } from './steps/label-hosts.js';
import { releaseHosts } from './steps/release-hosts.js';
import { reportReady } from './steps/report-ready.js';

/**
 * A failed step's Ready: False with the step's reason, severity and message, and a Warning Event
 * when it changed. An error no step expected (an API error) is told by lib-common's failure table
 * (object and field, no HTTP verb or URL).
 */
function recordFailure(p: SIPClusterPass, err: unknown): void {
  const failure =
    err instanceof ReconcileError
      ? err
      : (({ eventReason, severity, message }) =>
          new ReconcileError(message, { reason: eventReason, severity, cause: err }))(failureMessage(err));
  p.failure = failure;
  // The steps' own messages list every host and constraint at fault; only foreign ones are cut.
  const message = failure.message;
  setReady(p, falseCondition(CONDITION_READY, failure.reason, failure.severity, message), {
    type: 'Warning',
    reason: failure.reason,
    message,
  });
}

/**
 * Reconciles one SIPCluster: gather the hosts (schedule each role, read the hosts' data), deploy
 * the service infrastructure, then label the hosts. Labels come last because CAPI metal3 provisions
 * the tenant cluster from them: a host is labelled only once everything it needs is in place, each
 * write guarded by the resourceVersion the decision was made on. On deletion the hosts are
 * unlabelled (the services go with their owner). Every step is idempotent and safe to repeat after
 * a crash: held hosts count first and objects are applied only when they differ. Status (Ready, the
 * hosts each role holds) is written once per pass, only when it changed.
 */
export function sipClusterReconciler(opts: { images: ServiceImages }): Reconciler<SIPCluster> {
  return pipeline<SIPCluster, SIPClusterStatus, SIPClusterPass>({
    kind: SIPClusterKind,
    context: (pass) => Object.assign(pass, { images: opts.images }),
    // The spec's own errors first: gathering the hosts waits for BareMetalHosts.
    steps: [checkSpec, gatherHosts, deployServices, labelHosts, reportReady],
    finalizer: { name: SIP_FINALIZER, cleanup: [releaseHosts] },
    // A failed release (UnableToDecommission) is reported; a completed one writes nothing.
    statusWhileDeleting: true,
    failed: recordFailure,
    finish: sipClusterStatus,
    // setReady records Ready's Events, on any change of the condition (message included).
    readyEvents: false,
    // Each write is logged one line each; its Events stay SIP's own (HostScheduled, HostReleased, …).
    recordWrites: 'logs',
  });
}
