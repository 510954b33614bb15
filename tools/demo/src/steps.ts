import { performance } from 'node:perf_hooks';

/** One line per step with its number and elapsed time: the demo's visible progress. */
export class StepPrinter {
  private index = 0;
  constructor(
    private readonly total: number,
    private readonly out: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
  ) {}

  async run<T>(title: string, fn: (note: (msg: string) => void) => Promise<T>): Promise<T> {
    this.index += 1;
    const tag = `[${this.index}/${this.total}]`;
    const started = performance.now();
    this.out(`==> ${tag} ${title}`);
    const note = (msg: string) => this.out(`    ${tag} ${msg} (${seconds(performance.now() - started)})`);
    try {
      const result = await fn(note);
      this.out(`    ${tag} done in ${seconds(performance.now() - started)}`);
      return result;
    } catch (err) {
      this.out(`    ${tag} FAILED after ${seconds(performance.now() - started)}`);
      throw err;
    }
  }
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;
