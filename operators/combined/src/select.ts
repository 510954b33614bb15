import { keystoneOperator } from '@stackops/keystone-operator/operator';
import type { AnyOperator } from '@stackops/lib-common/runtime';
import { networkAddonsOperator } from '@stackops/network-addons-operator/operator';
import { placementOperator } from '@stackops/placement-operator/operator';
import { sipOperator } from '@stackops/sip-operator/operator';

/** The operators one process can run, by the name `--operators` takes. */
export const OPERATORS: Readonly<Record<string, AnyOperator>> = {
  keystone: keystoneOperator,
  placement: placementOperator,
  'network-addons': networkAddonsOperator,
  sip: sipOperator,
};

export const OPERATORS_ENV = 'OPERATORS';

/**
 * The operators `--operators=a,b` (or OPERATORS) names, in that order, and the arguments left for
 * the manager flags. Absent means all four; an empty or unknown name is an error naming the choices.
 */
export function selectOperators(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): { operators: AnyOperator[]; argv: string[] } {
  let value = env[OPERATORS_ENV];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--operators') value = argv[++i] ?? '';
    else if (arg.startsWith('--operators=')) value = arg.slice('--operators='.length);
    else rest.push(arg);
  }
  const names = value === undefined ? Object.keys(OPERATORS) : value.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !Object.hasOwn(OPERATORS, n));
  if (names.length === 0 || unknown.length)
    throw new RangeError(
      `--operators: ${unknown.length ? `unknown ${unknown.map((n) => `"${n}"`).join(', ')}` : 'empty'}; choose from ${Object.keys(OPERATORS).join(', ')}`,
    );
  return { operators: names.map((n) => OPERATORS[n] as AnyOperator), argv: rest };
}
