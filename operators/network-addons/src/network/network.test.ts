import { describe, expect, it } from 'vitest';
import { fillDefaults, invalidConfiguration, isChangeSafe, validate } from './network.js';

const noRandom = () => Uint8Array.from([0x12, 0x34]);

describe('validate', () => {
  it('accepts an empty spec', () => {
    expect(validate({})).toEqual([]);
  });

  it('aggregates the errors of every component', () => {
    const errors = validate({
      kubeMacPool: { rangeStart: 'foo' },
      imagePullPolicy: 'bar' as never,
      selfSignConfiguration: { caRotateInterval: '1h' } as never,
      multusDynamicNetworks: {},
    });
    const text = invalidConfiguration(errors);
    expect(text.split('\n')[0]).toBe('invalid configuration:');
    expect(text).toContain('both or none of the KubeMacPool ranges needs to be configured');
    expect(text).toContain("requested imagePullPolicy 'bar' is not valid");
    expect(text).toContain('failed to validate selfSignConfiguration: caOverlapInterval is missing');
    expect(text).toContain('the `multus` configuration is required');
    expect(errors).toHaveLength(6);
  });

  it.each(['/run/crio/crio.sock', '/run/containerd/containerd.sock', '/run/k3s/containerd/containerd.sock'])(
    'accepts the CRI socket %s',
    (path) => {
      expect(validate({ multus: {}, multusDynamicNetworks: { hostCRISocketPath: path as never } })).toEqual(
        [],
      );
    },
  );

  it.each(['Lorem ipsum', '/etc/somewhere/some.conf', '/run/unknown-cri/unknown-cri.sock'])(
    'refuses the CRI socket %j',
    (path) => {
      expect(validate({ multus: {}, multusDynamicNetworks: { hostCRISocketPath: path as never } })).toEqual([
        '`hostCRISocketPath` must be one of: /run/crio/crio.sock, /run/containerd/containerd.sock, /run/k3s/containerd/containerd.sock',
      ]);
    },
  );

  it('formats the aggregate like upstream', () => {
    expect(invalidConfiguration(['foo', 'bar'])).toBe('invalid configuration:\nfoo\nbar');
  });
});

describe('fillDefaults', () => {
  it('fills pull policy, rotation and placement of an empty spec', () => {
    const filled = fillDefaults({}, undefined, noRandom);
    expect(filled.imagePullPolicy).toBe('IfNotPresent');
    expect(filled.selfSignConfiguration.caRotateInterval).toBe('48h0m0s');
    expect(filled.placementConfiguration.workloads.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux' });
    expect(filled.placementConfiguration.infra.affinity?.nodeAffinity).toBeDefined();
    expect(filled.kubeMacPool).toBeUndefined();
  });

  it('takes earlier choices from the previous applied spec', () => {
    const previous = fillDefaults(
      {
        imagePullPolicy: 'Always',
        kubeMacPool: {},
        macvtap: { devicePluginConfig: 'mine' },
        multus: {},
        multusDynamicNetworks: { hostCRISocketPath: '/run/containerd/containerd.sock' },
      },
      undefined,
      noRandom,
    );
    const next = fillDefaults(
      { kubeMacPool: {}, macvtap: {}, multus: {}, multusDynamicNetworks: {} },
      previous,
      () => Uint8Array.from([0xff, 0xff]),
    );
    expect(next.imagePullPolicy).toBe('Always');
    expect(next.kubeMacPool).toEqual({ rangeStart: '02:12:34:00:00:00', rangeEnd: '02:12:34:ff:ff:ff' });
    expect(next.macvtap).toEqual({ devicePluginConfig: 'mine' });
    expect(next.multusDynamicNetworks).toEqual({ hostCRISocketPath: '/run/containerd/containerd.sock' });
  });

  it('gives the documented defaults for optional sub-fields', () => {
    const filled = fillDefaults({ macvtap: {}, multus: {}, multusDynamicNetworks: {} }, undefined, noRandom);
    expect(filled.macvtap).toEqual({ devicePluginConfig: 'macvtap-deviceplugin-config' });
    expect(filled.multusDynamicNetworks).toEqual({ hostCRISocketPath: '/run/crio/crio.sock' });
  });

  it('never writes into the spec it was given', () => {
    const spec = { kubeMacPool: {} };
    fillDefaults(spec, undefined, noRandom);
    expect(spec).toEqual({ kubeMacPool: {} });
  });
});

describe('isChangeSafe', () => {
  const base = fillDefaults({}, undefined, noRandom);

  it('allows equal specs, added and removed components and range changes', () => {
    const withBridge = fillDefaults({ linuxBridge: {}, kubeMacPool: {} }, base, noRandom);
    const otherRange = fillDefaults(
      { linuxBridge: {}, kubeMacPool: { rangeStart: '02:00:01:00:00:00', rangeEnd: '0A:FF:FF:FF:FF:F1' } },
      withBridge,
      noRandom,
    );
    expect(isChangeSafe(base, base)).toEqual([]);
    expect(isChangeSafe(base, withBridge)).toEqual([]);
    expect(isChangeSafe(withBridge, base)).toEqual([]);
    expect(isChangeSafe(withBridge, otherRange)).toEqual([]);
  });

  it('refuses an image pull policy change once deployed', () => {
    const always = fillDefaults({ imagePullPolicy: 'Always' }, undefined, noRandom);
    expect(isChangeSafe(base, always)).toEqual([
      'cannot modify ImagePullPolicy configuration once components were deployed',
    ]);
  });

  it('allows omitting the policy afterwards (the previous one is carried over)', () => {
    const always = fillDefaults({ imagePullPolicy: 'Always' }, undefined, noRandom);
    expect(isChangeSafe(always, fillDefaults({}, always, noRandom))).toEqual([]);
  });
});
