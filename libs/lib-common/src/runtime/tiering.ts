import { setFlagsFromString } from 'node:v8';

/**
 * From now on V8 runs this process's code in Ignition and Sparkplug only: no Maglev or TurboFan. An
 * operator mostly waits on the API server, and the optimising compilers' code and zones cost it
 * ~4 MiB idle and ~18 MiB at 200 KeystoneAPIs for ~5 % less CPU (tools/bench finding 30).
 *
 * Called by each operator's entry point once the operator has started, not given as `--max-opt=1`
 * on node's command line: a code-relevant V8 flag makes V8 refuse node's embedded code cache for
 * the built-in modules loaded after it is set, which then compile from source (ADR 0056); by then
 * start-up has loaded the ones it needs (ADR 0057). Both flags are read when V8 decides to tier a
 * function up, so setting them at run time takes effect for everything after.
 */
export function baselineCompilersOnly(): void {
  setFlagsFromString('--no-maglev');
  setFlagsFromString('--no-turbofan');
}
