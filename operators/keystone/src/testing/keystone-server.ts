import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '@stackops/lib-common/testing';
import { IdentityClient } from '../identity/client.js';
import { newFernetKey, readKeyRepository, writeKeyRepository } from './fernet-repository.js';
import { type KeystoneLayout, keystoneLayout, renderKeystoneConfig } from './keystone-config.js';
import { ensureKeystoneVenv, type KeystoneVenv } from './keystone-venv.js';
import { supportFile } from './support-files.js';

export interface KeystoneServerOptions {
  /** Password of the bootstrap admin user (default `12345678`, as upstream's test fixtures). */
  adminPassword?: string;
  adminUser?: string;
  adminProject?: string;
  /** Region created by the bootstrap (default `regionOne`). */
  region?: string;
  /** Initial fernet keys, index 0 = staged, highest = primary (default: 3 new keys). */
  fernetKeys?: readonly string[];
  /** `[fernet_tokens] max_active_keys` (default 5, the operator's default). */
  maxActiveKeys?: number;
  /** How long to wait for the server to listen (default 110 s, inside the 120 s hook timeout: a loaded machine needed more than 60). */
  startTimeoutMs?: number;
}

export interface KeystoneServer {
  /** `http://127.0.0.1:<port>` (no version suffix, like KeystoneAPI's status.apiEndpoints). */
  readonly url: string;
  readonly adminPassword: string;
  readonly adminUser: string;
  readonly adminProject: string;
  readonly region: string;
  readonly keystoneVersion: string;
  /** Data directory (config, sqlite database, key repositories, log). */
  readonly dir: string;
  /** Replaces the fernet key repository (index i = keys[i]; 0 staged, highest primary). */
  writeFernetKeys(keys: readonly string[]): Promise<void>;
  readFernetKeys(): Promise<string[]>;
  /** An Identity client logged in as the bootstrap admin (system scope). */
  adminClient(): IdentityClient;
  /** The last lines of Keystone's log, for failure messages. */
  logTail(lines?: number): Promise<string>;
  stop(): Promise<void>;
}

interface BootstrapInputs {
  adminPassword: string;
  adminUser: string;
  adminProject: string;
  region: string;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

const threeKeys = () => [newFernetKey(), newFernetKey(), newFernetKey()];

/** keystone.conf and the fernet and credential key repositories (keystone-manage wants them too). */
async function prepareDataDir(layout: KeystoneLayout, maxActiveKeys: number, fernetKeys: readonly string[]) {
  await writeFile(layout.config, renderKeystoneConfig(layout, maxActiveKeys));
  await writeKeyRepository(layout.fernetKeys, fernetKeys);
  await writeKeyRepository(layout.credentialKeys, [newFernetKey(), newFernetKey()]);
}

async function keystoneManage(
  venv: KeystoneVenv,
  layout: KeystoneLayout,
  args: readonly string[],
): Promise<void> {
  await runCommand(venv.keystoneManage, ['--config-file', layout.config, ...args], { timeoutMs: 5 * 60_000 });
}

/**
 * A database after `db_sync` + `bootstrap`, cached in the venv per bootstrap inputs: the two steps take
 * seconds, a copy takes milliseconds.
 */
async function bootstrappedDatabase(venv: KeystoneVenv, inputs: BootstrapInputs): Promise<string> {
  const key = createHash('sha256')
    .update(JSON.stringify({ version: venv.version, ...inputs }))
    .digest('hex');
  const templates = join(venv.dir, 'stackops-bootstrapped');
  const template = join(templates, `${key.slice(0, 24)}.sqlite`);
  if (await exists(template)) return template;
  await mkdir(templates, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'keystone-bootstrap-'));
  try {
    const layout = keystoneLayout(work);
    await prepareDataDir(layout, 5, threeKeys());
    await keystoneManage(venv, layout, ['db_sync']);
    await keystoneManage(venv, layout, [
      'bootstrap',
      '--bootstrap-password',
      inputs.adminPassword,
      '--bootstrap-username',
      inputs.adminUser,
      '--bootstrap-project-name',
      inputs.adminProject,
      '--bootstrap-region-id',
      inputs.region,
    ]);
    // Copy then rename: a concurrent starter sees either no template or a complete one.
    const partial = `${template}.${process.pid}.partial`;
    await copyFile(layout.database, partial);
    await rename(partial, template);
    return template;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function waitForListening(
  child: ChildProcessWithoutNullStreams,
  timeoutMs: number,
  log: () => Promise<string>,
) {
  return new Promise<number>((resolve, reject) => {
    let buffered = '';
    const fail = async (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`keystone did not start: ${why}\n${await log()}`));
    };
    const timer = setTimeout(() => void fail(`no LISTENING line within ${timeoutMs} ms`), timeoutMs);
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      void fail(`the server exited (${signal ?? `exit ${code}`})`);
    child.once('exit', onExit);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const match = /LISTENING (\d+)/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(Number(match[1]));
      }
    });
  });
}

/**
 * Starts a real OpenStack Keystone (installed from PyPI into a cached virtualenv) on 127.0.0.1 with a
 * free port, a fresh sqlite database bootstrapped with an admin user, and the given fernet keys.
 */
export async function startKeystoneServer(opts: KeystoneServerOptions = {}): Promise<KeystoneServer> {
  const inputs: BootstrapInputs = {
    adminPassword: opts.adminPassword ?? '12345678',
    adminUser: opts.adminUser ?? 'admin',
    adminProject: opts.adminProject ?? 'admin',
    region: opts.region ?? 'regionOne',
  };
  const venv = await ensureKeystoneVenv();
  const template = await bootstrappedDatabase(venv, inputs);

  const dir = await mkdtemp(join(tmpdir(), 'keystone-server-'));
  const layout = keystoneLayout(dir);
  await prepareDataDir(layout, opts.maxActiveKeys ?? 5, opts.fernetKeys ?? threeKeys());
  await copyFile(template, layout.database);

  const logStream = createWriteStream(layout.log, { flags: 'a' });
  const logTail = async (lines = 40) =>
    (await readFile(layout.log, 'utf8').catch(() => '')).trim().split('\n').slice(-lines).join('\n');
  const child = spawn(venv.python, [supportFile('serve.py'), layout.config, '127.0.0.1', '0'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.pipe(logStream);
  const port = await waitForListening(child, opts.startTimeoutMs ?? 110_000, logTail);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;

  let stopped = false;
  return {
    url,
    ...inputs,
    keystoneVersion: venv.version,
    dir,
    writeFernetKeys: (keys) => writeKeyRepository(layout.fernetKeys, keys),
    readFernetKeys: () => readKeyRepository(layout.fernetKeys),
    adminClient: () =>
      new IdentityClient({
        authUrl: url,
        username: inputs.adminUser,
        password: inputs.adminPassword,
        projectName: inputs.adminProject,
      }),
    logTail,
    async stop() {
      if (stopped) return;
      stopped = true;
      // serve.py exits when its stdin closes; SIGKILL if it does not within 5 s.
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
      logStream.end();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
