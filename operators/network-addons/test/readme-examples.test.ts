import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deleteConfig, run, useNetworkAddonsSuite } from './support.js';

/** The NetworkAddonsConfig examples of the upstream README, exactly as written there (v1alpha1). */
const EXAMPLES: Record<string, string> = {
  configuration: `apiVersion: networkaddonsoperator.network.kubevirt.io/v1alpha1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  multus: {}
  linuxBridge: {}
  kubeMacPool: {}
  nmstate: {}
  ovs: {}
  imagePullPolicy: Always
`,
  multus: `apiVersion: networkaddonsoperator.network.kubevirt.io/v1alpha1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  multus: {}
`,
  'linux bridge': `apiVersion: networkaddonsoperator.network.kubevirt.io/v1alpha1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  linuxBridge: {}
`,
  kubemacpool: `apiVersion: networkaddonsoperator.network.kubevirt.io/v1alpha1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  kubeMacPool:
   rangeStart: "02:00:00:00:00:00"
   rangeEnd: "FD:FF:FF:FF:FF:FF"
`,
  nmstate: `apiVersion: networkaddonsoperator.network.kubevirt.io/v1alpha1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  nmstate: {}
`,
  'open vswitch': `apiVersion: networkaddonsoperator.network.kubevirt.io/v1alpha1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  ovs: {}
`,
  'image pull policy': `apiVersion: networkaddonsoperator.network.kubevirt.io/v1alpha1
kind: NetworkAddonsConfig
metadata:
  name: cluster
spec:
  imagePullPolicy: Always
`,
};

describe('the upstream README examples, with kubectl', () => {
  const nao = useNetworkAddonsSuite('nao-readme');

  for (const [name, manifest] of Object.entries(EXAMPLES)) {
    it(`${name}: kubectl apply, then kubectl wait networkaddonsconfig cluster --for condition=Available`, async () => {
      await deleteConfig(nao.client); // each example is a configuration of its own
      await run('kubectl', ['apply', '-f', '-'], manifest);
      const out = await run('kubectl', [
        'wait',
        'networkaddonsconfig',
        'cluster',
        '--for',
        'condition=Available',
        '--timeout=90s',
      ]);
      expect(out).toContain('condition met');
      const cr = parse(await run('kubectl', ['get', 'networkaddonsconfig', 'cluster', '-o', 'yaml']));
      expect(cr.spec).toEqual(parse(manifest).spec);
      const table = await run('kubectl', ['get', 'networkaddonsconfig', 'cluster']);
      expect(table.split('\n')[0]).toMatch(
        /NAME\s+AVAILABLE\s+PROGRESSING\s+DEGRADED\s+OBSERVEDVERSION\s+AGE/,
      );
      expect(table.split('\n')[1]).toMatch(/^cluster\s+True\s+False\s+False\s+0\.1\.0\s+/);
      if (name === 'kubemacpool') {
        // KubeMacPool refuses a multicast bound: the end is lowered to the last unicast address below it.
        const cm = parse(
          await run('kubectl', [
            'get',
            'configmap',
            '-n',
            nao.ns,
            'kubemacpool-mac-range-config',
            '-o',
            'yaml',
          ]),
        );
        expect(cm.data).toEqual({ RANGE_START: '02:00:00:00:00:00', RANGE_END: 'FC:FF:FF:FF:FF:FF' });
      }
    });
  }

  it('a failure is readable with kubectl get networkaddonsconfig cluster -o yaml', async () => {
    await deleteConfig(nao.client);
    await run(
      'kubectl',
      ['apply', '-f', '-'],
      EXAMPLES['kubemacpool']!.replace('"02:00:00:00:00:00"', '"FE:00:00:00:00:00"'),
    );
    const wait = () =>
      run('kubectl', [
        'wait',
        'networkaddonsconfig',
        'cluster',
        '--for',
        'condition=Degraded',
        '--timeout=60s',
      ]);
    expect(await wait()).toContain('condition met');
    const status = parse(
      await run('kubectl', ['get', 'networkaddonsconfig', 'cluster', '-o', 'yaml']),
    ).status;
    const degraded = status.conditions.find((c: { type: string }) => c.type === 'Degraded');
    expect(degraded).toMatchObject({
      status: 'True',
      reason: 'FailedToValidate',
      message:
        'failed to validate NetworkConfig.Spec: invalid configuration:\nfailed to set mac address range: invalid range. Range end is lesser than or equal to its start. start: fe:00:00:00:00:00 end: fd:ff:ff:ff:ff:ff',
    });
  });
});
