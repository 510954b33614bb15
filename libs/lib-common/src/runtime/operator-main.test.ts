import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Manager } from './manager.js';
import {
  type OperatorContext,
  type OperatorIo,
  type OperatorMainOptions,
  operatorUsage,
  runOperator,
} from './operator-main.js';

function captureIo(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): OperatorIo & { out: string; err: string; codes: number[] } {
  const io = {
    argv,
    env,
    out: '',
    err: '',
    codes: [] as number[],
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
    exit: (code: number) => {
      io.codes.push(code);
    },
  };
  return io;
}

const COMMON_FLAGS = `  --watch-namespace=a,b                  namespaces to watch (default: all) [WATCH_NAMESPACE]
  --metrics-bind-address=host:port       /metrics (default 127.0.0.1:8080; :port = every interface; 0 = off) [METRICS_BIND_ADDRESS]
  --metrics-secure                       /metrics over HTTPS, callers authorized by the API server
                                         (TokenReview + SubjectAccessReview) [METRICS_SECURE]
  --metrics-cert-dir=dir                 tls.crt and tls.key for --metrics-secure (default: self-signed) [METRICS_CERT_DIR]
  --health-probe-bind-address=host:port  /healthz and /readyz (default 127.0.0.1:8081; :port = every interface) [HEALTH_PROBE_BIND_ADDRESS]
  --leader-elect                         elect a leader through a Lease (replicas > 1) [LEADER_ELECT]
  --leader-election-namespace=ns         namespace of the Lease [POD_NAMESPACE]
  --log-level=info                       trace, debug, info, warn, error [LOG_LEVEL]
  --kubeconfig=path                      default: in-cluster, else ~/.kube/config [KUBECONFIG]
  --graceful-shutdown-timeout=30s        [GRACEFUL_SHUTDOWN_TIMEOUT]
`;

describe('operatorUsage', () => {
  it('prints usage, summary, the common flags and the epilog', () => {
    const text = operatorUsage({
      name: 'demo-operator',
      summary: 'Runs demos.',
      epilog: 'Environment:\n  X  x\n',
    });
    expect(text).toBe(
      `Usage: demo-operator [flags]\n\nRuns demos.\n\nFlags (each also read from the environment variable in brackets):\n${COMMON_FLAGS}\nEnvironment:\n  X  x\n`,
    );
  });

  it('ends after the flags without an epilog', () => {
    expect(operatorUsage({ name: 'demo-operator', summary: 'Runs demos.' }).endsWith(COMMON_FLAGS)).toBe(
      true,
    );
  });

  it('renders a rewritten flag list, continuing multi-line help under the help column', () => {
    const text = operatorUsage({
      name: 'demo-operator',
      summary: 'Runs demos.',
      flags: () => [
        { flag: '--watch-namespace=a,b', help: ['first line,', 'second line'], env: 'WATCH_NAMESPACE' },
      ],
    });
    expect(text).toContain(
      `  --watch-namespace=a,b                  first line,\n${' '.repeat(41)}second line [WATCH_NAMESPACE]\n`,
    );
    expect(text).not.toContain('--leader-elect');
  });
});

describe('runOperator', () => {
  const base = (register: OperatorMainOptions['register']): OperatorMainOptions => ({
    name: 'demo-operator',
    summary: 'Runs demos.',
    register,
  });

  it('prints the usage for --help and -h without registering anything', async () => {
    for (const flag of ['--help', '-h']) {
      const register = vi.fn();
      const io = captureIo([flag]);
      await runOperator(base(register), io);
      expect(io.out).toBe(operatorUsage(base(register)));
      expect(io.codes).toEqual([]);
      expect(register).not.toHaveBeenCalled();
    }
  });

  it('prints "<name>: <message>" and exits 1 on an unknown flag', async () => {
    const register = vi.fn();
    const io = captureIo(['--no-such-flag']);
    await runOperator(base(register), io);
    expect(io.err).toBe('demo-operator: unknown flag --no-such-flag\n');
    expect(io.codes).toEqual([1]);
    expect(register).not.toHaveBeenCalled();
  });

  it('fails on bad operator settings before loading the kubeconfig', async () => {
    const register = vi.fn();
    const io = captureIo(['--kubeconfig=/nonexistent/kubeconfig']);
    await runOperator<string>(
      {
        name: 'demo-operator',
        summary: 'Runs demos.',
        register,
        readConfig: (env) => {
          if (!env['DEMO_NAMESPACE']) throw new Error('DEMO_NAMESPACE must be set');
          return env['DEMO_NAMESPACE'];
        },
      },
      io,
    );
    expect(io.err).toBe('demo-operator: DEMO_NAMESPACE must be set\n');
    expect(io.codes).toEqual([1]);
  });

  it('reports a kubeconfig file that cannot be read', async () => {
    const register = vi.fn();
    const io = captureIo(['--kubeconfig=/nonexistent/kubeconfig']);
    await runOperator(base(register), io);
    expect(io.err).toMatch(/^demo-operator: ENOENT.*\/nonexistent\/kubeconfig/);
    expect(io.codes).toEqual([1]);
    expect(register).not.toHaveBeenCalled();
  });

  it("lets the operator's own variable set the log level over --log-level, and refuses a bad one before connecting", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'operator-main-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    const levels: string[] = [];
    const options = (register: OperatorMainOptions['register']): OperatorMainOptions => ({
      name: 'demo-operator',
      summary: 'Runs demos.',
      register,
      logLevel: (env) => {
        if (env['DEMO_LEVEL'] === 'bad') throw new Error('DEMO_LEVEL is bad');
        return env['DEMO_LEVEL'];
      },
    });
    const run = async (env: NodeJS.ProcessEnv) => {
      const io = captureIo(['--log-level=warn', `--kubeconfig=${kubeconfig}`], env);
      const register = vi.fn((manager: Manager, ctx: OperatorContext<undefined>) => {
        levels.push(ctx.logger.level);
        return { start: () => manager.stop() };
      });
      await runOperator(options(register), io);
      return io;
    };
    try {
      await run({ DEMO_LEVEL: 'debug' });
      await run({});
      const bad = await run({ DEMO_LEVEL: 'bad' });
      expect(levels).toEqual(['debug', 'warn']);
      expect(bad.err).toBe('demo-operator: DEMO_LEVEL is bad\n');
      expect(bad.codes).toEqual([1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
