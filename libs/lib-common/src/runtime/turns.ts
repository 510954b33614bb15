const waitingTurns: (() => void)[] = [];
let turnArmed = false;

function releaseTurn(): void {
  const next = waitingTurns.shift();
  if (waitingTurns.length > 0) setImmediate(releaseTurn);
  else turnArmed = false;
  next?.();
}

/**
 * Resolves in a later turn of the event loop, one waiter per turn, process-wide (an immediate
 * queued by an immediate's callback runs in the next turn, after the loop polled for I/O).
 *
 * The work queues start each run with it. A reconcile that needs no request (a restart's first
 * passes: everything cached and up to date) runs to its end without giving the loop back. Started
 * at once, the passes of every controller over every cached object would run as one block, with
 * probes, watch events and Lease renewals waiting for all of them (20–30 ms at the bench's
 * restart, more with more objects); started one per turn, they wait for one run at most.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waitingTurns.push(resolve);
    if (turnArmed) return;
    turnArmed = true;
    setImmediate(releaseTurn);
  });
}
