import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

/** Runs a binary (helm, kubectl) and returns stdout; the error carries the command and its stderr. */
export async function run(bin: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await execFileP(bin, args, {
      env: { ...process.env, ...env },
      maxBuffer: 32 * 1024 * 1024,
    });
    return stdout;
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`${bin.split('/').pop()} ${args.join(' ')} failed:\n${e.stderr || e.message}`);
  }
}
