import { spawn } from 'node:child_process';

export interface ExecOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to the command's stdin, then closed. */
  input?: string;
}

/** Quotes what a shell would need quoted, for error messages only. */
function shellWords(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replaceAll("'", "'\\''")}'`)).join(' ');
}

/** A program that exited non-zero: the message has the command line and the end of its output. */
class ExecError extends Error {
  override name = 'ExecError';
  constructor(
    readonly argv: readonly string[],
    readonly code: number | null,
    readonly output: string,
  ) {
    const tail = output.trimEnd().split('\n').slice(-25).join('\n');
    super(`${shellWords(argv)} exited with ${code}\n${tail}`);
  }
}

/** Runs a program to completion and returns its stdout (stderr is kept for the error only). */
export function exec(argv: readonly string[], options: ExecOptions = {}): Promise<string> {
  const [program, ...args] = argv;
  if (program === undefined) return Promise.reject(new Error('exec: no program'));
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const both: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => {
      stdout.push(b);
      both.push(b);
    });
    child.stderr?.on('data', (b: Buffer) => both.push(b));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error(`${program}: not found on PATH`) : error),
    );
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(stdout).toString('utf8'));
      else reject(new ExecError(argv, code, Buffer.concat(both).toString('utf8')));
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
