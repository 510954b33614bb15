import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  chartFullname,
  createHelm,
  findRendered,
  HARDENED_CONTAINER_SECURITY_CONTEXT,
  helmBinary,
  operatorContainerProblems,
  parseRendered,
  renderedContainer,
  runCommand,
  setFlags,
  VALUES_SCHEMA_REFUSAL,
} from './helm.js';

const rendered = `---
# Source: op/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: rel-op
---
# Source: op/templates/empty.yaml
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: rel-op
spec:
  template:
    spec:
      containers:
        - name: manager
          image: example/op:1
          args: [--leader-elect]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: a
  namespace: one
rules:
  - apiGroups: [coordination.k8s.io]
    resources: [leases]
    verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: b
  namespace: two
`;

describe('helm output parsing', () => {
  it('parses every non-empty document, in order', () => {
    expect(parseRendered(rendered).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'ServiceAccount/rel-op',
      'Deployment/rel-op',
      'Role/a',
      'Role/b',
    ]);
    expect(parseRendered('')).toEqual([]);
  });

  it('finds objects by kind, and by name', () => {
    const docs = parseRendered(rendered);
    expect(findRendered(docs, 'Role').map((r) => r.metadata.namespace)).toEqual(['one', 'two']);
    expect(findRendered(docs, 'Role', 'b').map((r) => r.metadata.namespace)).toEqual(['two']);
    expect(findRendered(docs, 'Role', 'c')).toEqual([]);
    expect(findRendered(docs, 'ClusterRole')).toEqual([]);
    expect(findRendered(docs, 'Role', 'a')[0]?.rules?.[0]?.resources).toEqual(['leases']);
  });

  it('returns the first container of the Deployment, and fails without one', () => {
    const c = renderedContainer(parseRendered(rendered));
    expect(c.image).toBe('example/op:1');
    expect(c.args).toEqual(['--leader-elect']);
    expect(() => renderedContainer(parseRendered(rendered), 'other')).toThrow(
      /no container in the rendered Deployment other/,
    );
  });
});

describe('helm arguments and names', () => {
  it('turns values into --set flags', () => {
    expect(setFlags(['a=1', 'b={x,y}'])).toEqual(['--set', 'a=1', '--set', 'b={x,y}']);
    expect(setFlags()).toEqual([]);
  });

  it("names objects like charts' fullname helper", () => {
    expect(chartFullname('ks-chart-0', 'keystone-operator')).toBe('ks-chart-0-keystone-operator');
    expect(chartFullname('my-keystone-operator', 'keystone-operator')).toBe('my-keystone-operator');
    // Cut to 63 characters, then no trailing dash.
    expect(chartFullname('r'.repeat(45), 'placement-operator')).toBe(`${'r'.repeat(45)}-placement-operato`);
    expect(chartFullname('r'.repeat(62), 'placement-operator')).toBe('r'.repeat(62));
  });

  it('takes the helm binary from the argument, else HELM_BINARY, else fails', () => {
    const saved = process.env['HELM_BINARY'];
    try {
      process.env['HELM_BINARY'] = '/from/env/helm';
      expect(helmBinary('/given/helm')).toBe('/given/helm');
      expect(helmBinary()).toBe('/from/env/helm');
      delete process.env['HELM_BINARY'];
      expect(() => helmBinary()).toThrow(/HELM_BINARY/);
    } finally {
      if (saved === undefined) delete process.env['HELM_BINARY'];
      else process.env['HELM_BINARY'] = saved;
    }
  });
});

describe('createHelm', () => {
  // A stand-in for helm that prints its arguments (as a YAML ConfigMap for `template`) or fails.
  const dir = mkdtempSync(join(tmpdir(), 'fake-helm-'));
  const bin = join(dir, 'helm');
  writeFileSync(
    bin,
    [
      '#!/bin/sh',
      'if [ "$1" = fail ]; then echo "Error: values do not fit" >&2; exit 1; fi',
      'if [ "$1" = template ]; then printf "kind: ConfigMap\\nmetadata:\\n  name: args\\ndata:\\n  args: \\"%s\\"\\n" "$*"; exit 0; fi',
      'echo "$*"',
    ].join('\n'),
  );
  chmodSync(bin, 0o755);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const helm = createHelm(bin);

  it('builds lint, install and uninstall command lines', async () => {
    expect(await helm.lint('/c', ['a=1'])).toBe('lint --strict /c --set a=1\n');
    expect(await helm.install('r', '/c', { namespace: 'ns', set: ['a=1'], waitTimeout: '90s' })).toBe(
      'install r /c --namespace ns --set a=1 --wait --timeout 90s\n',
    );
    expect(await helm.install('r', '/c', { namespace: 'ns' })).toBe('install r /c --namespace ns\n');
    expect(await helm.uninstall('r', 'ns')).toBe('uninstall r --namespace ns\n');
  });

  it('parses what template renders', async () => {
    const [cm] = await helm.template('/c', {
      release: 'r',
      namespace: 'ns',
      set: ['a=1'],
      kubeVersion: '1.34.0',
    });
    expect(cm?.['data']).toEqual({ args: 'template r /c --namespace ns --kube-version 1.34.0 --set a=1' });
  });

  it("rejects with helm's stderr", async () => {
    await expect(helm.run(['fail'])).rejects.toThrow(/helm fail failed: Error: values do not fit/);
  });

  it('recognises the values-schema refusal of helm 3', () => {
    expect(
      "Error: values don't meet the specifications of the schema(s) in the following chart(s):\nop:\n- at '/replicas': minimum: got -1, want 0",
    ).toMatch(VALUES_SCHEMA_REFUSAL);
    expect('Error: INSTALLATION FAILED: cannot re-use a name that is still in use').not.toMatch(
      VALUES_SCHEMA_REFUSAL,
    );
  });
});

describe('runCommand', () => {
  it('feeds stdin and resolves stdout, without blocking the event loop', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 5);
    const out = await runCommand('/bin/sh', ['-c', 'sleep 0.1; cat'], { input: 'hello' });
    clearInterval(timer);
    expect(out).toBe('hello');
    expect(ticks).toBeGreaterThan(3);
  });

  it('rejects with the tool name, its arguments and its stderr', async () => {
    await expect(runCommand('/bin/sh', ['-c', 'echo broken >&2; exit 3'])).rejects.toThrow(
      /^sh -c echo broken >&2; exit 3 failed: broken/,
    );
  });

  it('passes the environment it is given instead of the process one', async () => {
    expect(await runCommand('/bin/sh', ['-c', 'echo "$GREETING:$HOME"'], { env: { GREETING: 'hi' } })).toBe(
      'hi:\n',
    );
  });

  it('ends a command that outlives timeoutMs with SIGTERM and names the signal', async () => {
    const started = Date.now();
    await expect(
      runCommand('/bin/sh', ['-c', 'echo working; exec sleep 30'], { timeoutMs: 200 }),
    ).rejects.toThrow(/^sh -c echo working; exec sleep 30 failed \(SIGTERM after 200 ms\): working$/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('keeps the end of a long output in the error', async () => {
    await expect(
      runCommand('/bin/sh', [
        '-c',
        'i=0; while [ $i -lt 5000 ]; do echo line$i >&2; i=$((i+1)); done; exit 1',
      ]),
    ).rejects.toThrow(/line4999$/);
  });
});

describe('operatorContainerProblems', () => {
  const good = {
    image: 'x',
    args: ['--leader-elect', '--metrics-bind-address=:8080', '--health-probe-bind-address=:8081'],
    env: [],
    securityContext: { ...HARDENED_CONTAINER_SECURITY_CONTEXT },
    livenessProbe: { httpGet: { path: '/healthz', port: 8081 } },
    readinessProbe: { httpGet: { path: '/readyz', port: 8081 } },
  };

  it('finds nothing wrong with a hardened, probed container whose arguments parse', () => {
    expect(operatorContainerProblems(good)).toEqual([]);
  });

  it('names each problem', () => {
    expect(
      operatorContainerProblems({
        ...good,
        args: ['--no-such-flag'],
        securityContext: { runAsNonRoot: true },
        readinessProbe: { httpGet: { path: '/healthz' } },
      }),
    ).toEqual([
      'securityContext is not the hardened one: {"runAsNonRoot":true}',
      'readinessProbe is not GET /readyz',
      expect.stringMatching(/^the operator refuses its arguments: .*no-such-flag/),
    ]);
    expect(operatorContainerProblems({ ...good, args: [] })).toEqual([
      'metrics bind 127.0.0.1:8080, not :8080',
      'health probes bind 127.0.0.1:8081, not :8081',
    ]);
  });
});
