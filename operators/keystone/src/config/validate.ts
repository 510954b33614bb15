import { secretKeyProblem } from '@stackops/lib-common/pipeline';
import type { ResolvedSpec } from './spec.js';

/** Minute, hour, day of month, month, day of week: the five fields of a CronJob's schedule, with their ranges. */
const CRON_FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31, any: true },
  { name: 'month', min: 1, max: 12, names: 'JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC' },
  { name: 'day of week', min: 0, max: 6, names: 'SUN MON TUE WED THU FRI SAT', any: true },
] as const;

/** The shorthands a CronJob's schedule accepts besides five fields. */
const CRON_MACROS = new Set([
  '@yearly',
  '@annually',
  '@monthly',
  '@weekly',
  '@daily',
  '@midnight',
  '@hourly',
]);

function cronValue(text: string, field: (typeof CRON_FIELDS)[number]): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (!('names' in field)) return undefined;
  const i = field.names.split(' ').indexOf(text.toUpperCase());
  return i < 0 ? undefined : i + field.min;
}

/** What is wrong with one field of a cron expression (`*`, `?`, values, ranges, lists, `/step`), or undefined. */
function cronFieldProblem(text: string, field: (typeof CRON_FIELDS)[number]): string | undefined {
  for (const part of text.split(',')) {
    const [range = '', step, extra] = part.split('/');
    if (extra !== undefined || (step !== undefined && !/^[1-9]\d*$/.test(step)))
      return `${field.name} "${text}": a step is /<positive number>`;
    if (range === '*' || (range === '?' && 'any' in field)) continue;
    const [from = '', to, more] = range.split('-');
    const a = cronValue(from, field);
    const b = to === undefined ? a : cronValue(to, field);
    if (more !== undefined || a === undefined || b === undefined)
      return `${field.name} "${text}" is not a value, a range or *`;
    if (a < field.min || b > field.max || a > b)
      return `${field.name} "${text}" is outside ${field.min}-${field.max}`;
  }
  return undefined;
}

/** What is wrong with a CronJob schedule, or undefined: five fields or a shorthand such as @hourly. */
export function cronScheduleProblem(schedule: string): string | undefined {
  const trimmed = schedule.trim();
  if (trimmed.startsWith('@'))
    return CRON_MACROS.has(trimmed) ? undefined : `"${trimmed}" is not one of ${[...CRON_MACROS].join(', ')}`;
  const fields = trimmed.split(/\s+/);
  if (fields.length !== CRON_FIELDS.length)
    return `"${schedule}" has ${fields.length} fields, a cron expression has 5 (minute hour day-of-month month day-of-week)`;
  for (const [i, field] of CRON_FIELDS.entries()) {
    const problem = cronFieldProblem(fields[i] ?? '', field);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Every error of a KeystoneAPI's spec that needs no other object, each naming its field. The CRD
 * refuses most of them already; this also covers what CEL cannot say (a cron value's range) and
 * objects stored before a rule existed.
 */
export function keystoneSpecProblems(spec: ResolvedSpec): string[] {
  const problems: string[] = [];
  if (!spec.externalKeystoneAPI) {
    const cron = cronScheduleProblem(spec.trustFlushSchedule);
    if (cron) problems.push(`spec.trustFlushSchedule: ${cron}`);
  }
  for (const key of Object.keys(spec.defaultConfigOverwrite ?? {})) {
    const problem = secretKeyProblem(key);
    if (problem) problems.push(`spec.defaultConfigOverwrite: key ${problem}`);
  }
  for (const [selector, key] of Object.entries(spec.passwordSelectors)) {
    const problem = secretKeyProblem(key);
    if (problem) problems.push(`spec.passwordSelectors.${selector}: Secret key ${problem}`);
  }
  return problems;
}
