import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * What a new user meets on a first run, in a terminal, with the machine's own Node: no question from
 * nx (a prompt stops `make demo`, and answering it rewrites nx.json), and the README's commands work.
 */
const repoRoot = resolve(import.meta.dirname, '../../..');
// nx's analytics question, as its heading prints it (the question itself comes a character at a time).
const PROMPT = /Help improve Nx by sharing usage data/;
const scratch = mkdtempSync(join(tmpdir(), 'demo-first-run-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * `nx show projects` in a pseudo-terminal (util-linux `script`), in a workspace holding `nxJson` and
 * the repository's package.json and node_modules, with an empty HOME and nx cache, as on a fresh
 * machine. Stopped after `timeoutMs` if it waits for an answer.
 */
function nxInTerminal(
  nxJson: string,
  timeoutMs: number,
): Promise<{ out: string; code: number | null; nxJsonAfter: string }> {
  const ws = mkdtempSync(join(scratch, 'ws-'));
  writeFileSync(join(ws, 'nx.json'), nxJson);
  writeFileSync(join(ws, 'package.json'), readFileSync(join(repoRoot, 'package.json')));
  symlinkSync(join(repoRoot, 'node_modules'), join(ws, 'node_modules'));
  mkdirSync(join(ws, 'libs', 'probe'), { recursive: true });
  writeFileSync(join(ws, 'libs', 'probe', 'package.json'), '{"name":"probe","version":"0.0.0"}\n');
  const home = mkdtempSync(join(scratch, 'home-'));
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    PATH: `${join(repoRoot, 'node_modules', '.bin')}${delimiter}${process.env['PATH']}`,
    NX_DAEMON: 'false',
    NX_CACHE_DIRECTORY: join(home, 'nx-cache'),
    NX_WORKSPACE_DATA_DIRECTORY: join(home, 'nx-data'),
    TERM: 'xterm',
  };
  // A terminal user's environment: nx never prompts when it thinks it runs in CI.
  for (const k of ['CI', 'GITHUB_ACTIONS', 'BUILD_NUMBER', 'NX_TUI', 'VITEST', 'VITEST_WORKER_ID'])
    delete env[k];
  return new Promise((done) => {
    const child = spawn('script', ['-qec', 'nx show projects', '/dev/null'], {
      cwd: ws,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    const stop = () => process.kill(-child.pid!, 'SIGKILL');
    // A question nobody answers: stop at once, there is nothing more to see.
    const collect = (d: Buffer) => {
      out += String(d);
      if (PROMPT.test(out)) stop();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(stop, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ out, code, nxJsonAfter: readFileSync(join(ws, 'nx.json'), 'utf8') });
    });
  });
}

describe('first run in a terminal', () => {
  const committed = readFileSync(join(repoRoot, 'nx.json'), 'utf8');

  it('nx asks about analytics in a terminal when nx.json has no choice (the check can fail)', async () => {
    const { analytics: _, ...withoutChoice } = JSON.parse(committed) as Record<string, unknown>;
    const { out } = await nxInTerminal(`${JSON.stringify(withoutChoice, null, 2)}\n`, 60_000);
    expect(out).toMatch(PROMPT);
  });

  it('nx never asks with the committed nx.json, and leaves it byte for byte as it is', async () => {
    const { out, code, nxJsonAfter } = await nxInTerminal(committed, 120_000);
    expect(out).not.toMatch(PROMPT);
    expect(code).toBe(0);
    expect(out).toContain('probe');
    expect(nxJsonAfter).toBe(committed);
  });
});

/** The machine's own node: the first `node` on PATH once the repository's node_modules/.bin is left out. */
function machineNode(): string {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter((d) => !d.includes('node_modules'));
  const found = spawnSync('sh', ['-c', 'command -v node'], {
    env: { PATH: dirs.join(delimiter) },
    encoding: 'utf8',
  });
  const path = found.stdout.trim();
  if (!path) throw new Error(`no node on PATH outside node_modules (${dirs.join(delimiter)})`);
  return path;
}

describe("the README's commands on the machine's own Node", () => {
  const node = machineNode();
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();

  for (const [entry, expected] of [
    ['tools/demo/dist/main.js', /Usage: stackops-demo[\s\S]*--replace/],
    ['tools/demo/dist/uninstall-main.js', /Usage: stackops-uninstall[\s\S]*--delete-baremetalhost-crd/],
  ] as const) {
    it(`node ${entry} --help works with ${node} (${version})`, () => {
      const res = spawnSync(node, [join(repoRoot, entry), '--help'], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: (process.env['PATH'] ?? '')
            .split(delimiter)
            .filter((d) => !d.includes('node_modules'))
            .join(delimiter),
        },
        timeout: 60_000,
      });
      expect(res.stderr).not.toMatch(/TypeError|Error:/);
      expect(res.status).toBe(0);
      expect(res.stdout).toMatch(expected);
    });
  }
});
