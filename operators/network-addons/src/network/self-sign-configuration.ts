import { formatGoDuration, parseGoDuration } from '../api/duration.js';
import type { SelfSignConfiguration } from '../api/network-addons-config.js';

type Field = keyof SelfSignConfiguration;
const FIELDS: Field[] = [
  'caRotateInterval',
  'caOverlapInterval',
  'certRotateInterval',
  'certOverlapInterval',
];
const PREFIX = 'failed to validate selfSignConfiguration';

export const DEFAULT_SELF_SIGN_CONFIGURATION: SelfSignConfiguration = {
  caRotateInterval: '48h0m0s',
  caOverlapInterval: '24h0m0s',
  certRotateInterval: '24h0m0s',
  certOverlapInterval: '12h0m0s',
};

/**
 * Staged like upstream: missing fields, then unparsable ones, then zero ones, then the ordering
 * (caOverlap <= caRotate, certRotate <= caRotate, certOverlap <= certRotate); each stage only runs when
 * the earlier ones found nothing.
 */
export function validateSelfSignConfiguration(conf: Partial<SelfSignConfiguration> | undefined): string[] {
  if (!conf) return [];
  const missing = FIELDS.filter((f) => !conf[f]).map((f) => `${PREFIX}: ${f} is missing`);
  if (missing.length) return missing;
  const parsed = {} as Record<Field, bigint>;
  const unparsable: string[] = [];
  for (const f of FIELDS) {
    const value = parseGoDuration(conf[f] ?? '');
    if (value === undefined)
      unparsable.push(`${PREFIX}: error parsing ${f}: time: invalid duration "${conf[f]}"`);
    else parsed[f] = value;
  }
  if (unparsable.length) return unparsable;
  const zero = FIELDS.filter((f) => parsed[f] === 0n).map((f) => `${PREFIX}: ${f} duration has to be > 0`);
  if (zero.length) return zero;
  const notAbove = (lhs: Field, rhs: Field): string[] =>
    parsed[rhs] > parsed[lhs]
      ? [
          `${PREFIX}: ${rhs}(${formatGoDuration(parsed[rhs])}) has to be <= ${lhs}(${formatGoDuration(parsed[lhs])})`,
        ]
      : [];
  return [
    ...notAbove('caRotateInterval', 'caOverlapInterval'),
    ...notAbove('caRotateInterval', 'certRotateInterval'),
    ...notAbove('certRotateInterval', 'certOverlapInterval'),
  ];
}

const isComplete = (conf: Partial<SelfSignConfiguration> | undefined): conf is SelfSignConfiguration =>
  !!conf && FIELDS.every((f) => !!conf[f]);

/** A complete configuration is kept; otherwise the previous complete one, otherwise the defaults (never a merge). */
export function fillSelfSignConfigurationDefaults(
  conf: Partial<SelfSignConfiguration> | undefined,
  previous: Partial<SelfSignConfiguration> | undefined,
): SelfSignConfiguration {
  if (isComplete(conf)) return { ...conf };
  if (isComplete(previous)) return { ...previous };
  return { ...DEFAULT_SELF_SIGN_CONFIGURATION };
}
