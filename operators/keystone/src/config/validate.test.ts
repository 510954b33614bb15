import { describe, expect, it } from 'vitest';
import type { KeystoneAPI } from '../api/keystone-api.js';
import { resolveSpec } from './spec.js';
import { cronScheduleProblem, keystoneSpecProblems } from './validate.js';

const spec = (s: Partial<KeystoneAPI['spec']>) =>
  resolveSpec({ metadata: { name: 'k' }, spec: { secret: 'osp-secret', ...s } } as KeystoneAPI, {
    apiImage: 'img',
  });

describe('cronScheduleProblem', () => {
  it.each(['1 * * * *', '*/5 0-6 1,15 JAN-MAR mon-fri', '0 0 ? * SUN', '@hourly', ' 59 23 31 12 6 '])(
    'accepts %s',
    (s) => expect(cronScheduleProblem(s)).toBeUndefined(),
  );
  it.each([
    ['every hour', /has 2 fields/],
    ['61 * * * *', /minute "61" is outside 0-59/],
    ['* 24 * * *', /hour "24" is outside 0-23/],
    ['* * 0 * *', /day of month "0" is outside 1-31/],
    ['* * * 13 *', /month "13" is outside 1-12/],
    ['* * * * 7', /day of week "7" is outside 0-6/],
    ['*/0 * * * *', /a step is/],
    ['5-1 * * * *', /outside/],
    ['? * * * *', /not a value/],
    ['@every', /not one of/],
  ])('refuses %s', (s, why) => expect(cronScheduleProblem(s)).toMatch(why));
});

describe('keystoneSpecProblems', () => {
  it('lists every error of the spec at once, each naming its field', () => {
    expect(
      keystoneSpecProblems(
        spec({
          trustFlushSchedule: '61 * * * *',
          defaultConfigOverwrite: { '..': 'x', 'policy.yaml': 'y' },
          passwordSelectors: { admin: '.', database: 'ok' },
        }),
      ),
    ).toEqual([
      'spec.trustFlushSchedule: minute "61" is outside 0-59',
      'spec.defaultConfigOverwrite: key ".." may not be . or start with ..',
      'spec.passwordSelectors.admin: Secret key "." may not be . or start with ..',
    ]);
  });
  it('has none for the defaults, and ignores the CronJob in external mode', () => {
    expect(keystoneSpecProblems(spec({}))).toEqual([]);
    expect(keystoneSpecProblems(spec({ externalKeystoneAPI: true, trustFlushSchedule: 'x' }))).toEqual([]);
  });
});
