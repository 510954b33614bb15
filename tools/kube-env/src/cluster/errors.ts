import { formatCommand, tailFile } from '../util/run.js';

/** A component that exited or never became healthy: says which, how it was started, and how its log ends. */
export class ComponentStartError extends Error {
  override name = 'ComponentStartError';
  constructor(
    readonly component: string,
    reason: string,
    readonly command: readonly string[],
    readonly logFile: string,
  ) {
    super(
      `${component} ${reason}\ncommand: ${formatCommand(command)}\nlast 30 lines of ${logFile}:\n${tailFile(logFile, 30)}`,
    );
  }
}
