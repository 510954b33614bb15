import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Append the command line, stdout and stderr to this file. */
  logFile?: string;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** A command that exited non-zero; the message names the command and ends with its output. */
class CommandError extends Error {
  constructor(
    readonly command: readonly string[],
    readonly exitCode: number | null,
    readonly output: string,
  ) {
    super(`command failed (exit ${exitCode}): ${formatCommand(command)}\n${output}`);
    this.name = 'CommandError';
  }
}

export function formatCommand(command: readonly string[]): string {
  return command
    .map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replaceAll("'", "'\\''")}'`))
    .join(' ');
}

/** Runs a command to completion, collecting its output (and copying it to a log file if given). */
export function run(command: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const [file, ...args] = command;
  if (file === undefined) throw new Error('empty command');
  if (options.logFile) appendFileSync(options.logFile, `\n$ ${formatCommand(command)}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      out.push(chunk);
      if (options.logFile) appendFileSync(options.logFile, chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err.push(chunk);
      if (options.logFile) appendFileSync(options.logFile, chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (code === 0) resolve({ stdout, stderr });
      else reject(new CommandError(command, code, lastLines(`${stdout}${stderr}`, 30)));
    });
  });
}

function lastLines(text: string, count: number): string {
  const lines = text.replace(/\n+$/, '').split('\n');
  return lines.slice(-count).join('\n');
}

export function tailFile(path: string, count: number): string {
  try {
    return lastLines(readFileSync(path, 'utf8'), count);
  } catch {
    return '(no log)';
  }
}
