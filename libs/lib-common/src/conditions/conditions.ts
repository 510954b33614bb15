import { ConditionStatus, ConditionType, formatMessage, messagesOf, Reason, Severity } from './catalog.js';
import {
  type Condition,
  type ConditionInput,
  compareConditionTypes,
  falseCondition,
  formatTime,
  hasSameState,
  isErrorCondition,
  normalizeCondition,
  parseCondition,
  trueCondition,
  unknownCondition,
} from './condition.js';
import { cutMessage } from './messages.js';
import { mirrorConditions } from './mirror.js';

/** Longest message a condition stores (a composed message listing many objects may need more than 200). */
const MAX_STORED_MESSAGE = 1000;

export interface ConditionsOptions {
  /** Clock for new transition times (tests pin it). */
  now?: () => Date;
}

/**
 * The conditions of one object, with upstream lib-common's semantics (see the README, "Conditions"):
 * setting a condition whose state did not change keeps its transition time; the list is always
 * kept sorted (`Ready` first, then by type) so serialising it is deterministic.
 *
 * Typical reconcile:
 * ```ts
 * const saved = obj.status?.conditions ?? [];
 * const conds = new Conditions().init([ConditionType.InputReady, ConditionType.DeploymentReady]);
 * // ... conds.markTrue(...) / conds.markFalse(...) as the reconcile progresses ...
 * conds.computeReady().restoreLastTransitionTimes(saved);
 * await patchStatusIfChanged(client, kind, obj, { ...status, conditions: conds.toJSON() });
 * ```
 */
export class Conditions implements Iterable<Condition> {
  #items: Condition[] = [];
  readonly #now: () => Date;

  constructor(initial: Iterable<Condition> = [], opts: ConditionsOptions = {}) {
    this.#now = opts.now ?? (() => new Date());
    for (const c of initial) this.#put(normalizeCondition(c, c.lastTransitionTime));
  }

  /** Reads `status.conditions` of an object as it came from the API server (tolerates junk). */
  static from(raw: unknown, opts?: ConditionsOptions): Conditions {
    const list = Array.isArray(raw) ? raw.map(parseCondition).filter((c) => c !== undefined) : [];
    return new Conditions(list, opts);
  }

  /**
   * Starts a reconcile: clears everything (so condition types that no longer apply disappear),
   * sets Ready to Unknown/Requested "Setup started", then sets each entry. A bare type string means
   * Unknown with reason Init and the catalog's init message.
   */
  init(entries: Iterable<string | ConditionInput> = []): this {
    this.reset();
    this.set(unknownCondition(ConditionType.Ready, Reason.Requested, messagesOf(ConditionType.Ready)?.init));
    for (const e of entries) {
      this.set(typeof e === 'string' ? unknownCondition(e, Reason.Init, messagesOf(e)?.init ?? '') : e);
    }
    return this;
  }

  reset(): this {
    this.#items = [];
    return this;
  }

  /**
   * Adds or replaces the condition of `c.type`. An existing condition in the same state stays as it
   * is (its transition time is kept); otherwise `c` is stored with its own time or now.
   */
  set(input: ConditionInput | undefined): this {
    if (!input) return this;
    // A safety cap (values are cut where messages are made: `%s` arguments, failure messages),
    // applied before comparing so a long message does not look changed on every pass.
    const c = input.message ? { ...input, message: cutMessage(input.message, MAX_STORED_MESSAGE) } : input;
    const existing = this.#find(c.type);
    if (existing && hasSameState(existing, c)) return this;
    this.#put(normalizeCondition(c, c.lastTransitionTime || formatTime(this.#now())));
    return this;
  }

  remove(type: string): this {
    this.#items = this.#items.filter((c) => c.type !== type);
    return this;
  }

  /** True, reason Ready; the message defaults to the catalog's ready message of the type. */
  markTrue(type: string, message?: string, ...args: readonly unknown[]): this {
    return this.set(trueCondition(type, formatMessage(message ?? messagesOf(type)?.ready ?? '', ...args)));
  }

  markFalse(
    type: string,
    reason: string,
    severity: Severity,
    message: string,
    ...args: readonly unknown[]
  ): this {
    return this.set(falseCondition(type, reason, severity, formatMessage(message, ...args)));
  }

  /** Unknown; the message defaults to the catalog's init message of the type. */
  markUnknown(type: string, reason: string, message?: string, ...args: readonly unknown[]): this {
    return this.set(
      unknownCondition(type, reason, formatMessage(message ?? messagesOf(type)?.init ?? '', ...args)),
    );
  }

  /**
   * The "still in progress" state: False, Requested, Info, with the catalog's running (or waiting)
   * message unless one is given.
   */
  markRequested(type: string, message?: string, ...args: readonly unknown[]): this {
    const m = messagesOf(type);
    return this.markFalse(
      type,
      Reason.Requested,
      Severity.Info,
      message ?? m?.running ?? m?.waiting ?? '',
      ...args,
    );
  }

  /**
   * The "failed, will retry" state: False, Error, Warning, with the catalog's error format filled
   * with `detail` (an Error prints its message). Never pass secret values as detail.
   */
  markError(type: string, detail: unknown): this {
    const format = messagesOf(type)?.error ?? '%s';
    return this.markFalse(type, Reason.Error, Severity.Warning, format, detail);
  }

  get(type: string): Condition | undefined {
    const c = this.#find(type);
    return c ? { ...c } : undefined;
  }

  has(type: string): boolean {
    return this.#find(type) !== undefined;
  }

  /** False when absent. */
  isTrue(type: string): boolean {
    return this.#find(type)?.status === ConditionStatus.True;
  }

  /** False when absent. */
  isFalse(type: string): boolean {
    return this.#find(type)?.status === ConditionStatus.False;
  }

  /** True when absent (upstream semantics: nothing known yet). */
  isUnknown(type: string): boolean {
    const c = this.#find(type);
    return c === undefined || c.status === ConditionStatus.Unknown;
  }

  /** False with reason Error or BackoffLimitExceeded. */
  isError(type: string): boolean {
    return isErrorCondition(this.#find(type));
  }

  /** Every condition except Ready is True (an empty set counts as all true). */
  allSubConditionsTrue(): boolean {
    return this.#items.every((c) => c.type === ConditionType.Ready || c.status === ConditionStatus.True);
  }

  /** This set summarised as one condition of `targetType` (see `mirrorConditions`). */
  mirror(targetType: string): Condition | undefined {
    return mirrorConditions(this.#items, targetType);
  }

  /**
   * Computes Ready from the other conditions: True "Setup complete" when all of them are True;
   * otherwise a copy of the highest-priority one (status, reason, severity, message and
   * transition time). Ready itself does not take part, so the result never depends on Ready's
   * previous value; ties are broken by `compareByPriority` (latest time, then type name).
   */
  computeReady(): this {
    if (this.allSubConditionsTrue()) return this.markTrue(ConditionType.Ready);
    const summary = mirrorConditions(
      this.#items.filter((c) => c.type !== ConditionType.Ready),
      ConditionType.Ready,
    );
    this.remove(ConditionType.Ready);
    return this.set(summary);
  }

  /**
   * For each condition whose state equals the previous status' condition of the same type, takes
   * the previous transition time: re-initialising conditions on every reconcile must not make
   * their times (and so the status) change.
   */
  restoreLastTransitionTimes(previous: Iterable<Condition> | undefined): this {
    if (!previous) return this;
    const byType = new Map<string, Condition>();
    for (const p of previous) byType.set(p.type, p);
    this.#items = this.#items.map((c) => {
      const p = byType.get(c.type);
      return p?.lastTransitionTime && hasSameState(c, p)
        ? { ...c, lastTransitionTime: p.lastTransitionTime }
        : c;
    });
    return this;
  }

  /** Sorted copies: `Ready` first, then ascending by type. */
  list(): Condition[] {
    return this.#items.map((c) => ({ ...c }));
  }

  /** What goes into `status.conditions`. */
  toJSON(): Condition[] {
    return this.list();
  }

  get size(): number {
    return this.#items.length;
  }

  [Symbol.iterator](): Iterator<Condition> {
    return this.list()[Symbol.iterator]();
  }

  #find(type: string): Condition | undefined {
    return this.#items.find((c) => c.type === type);
  }

  #put(c: Condition): void {
    this.#items = this.#items.filter((x) => x.type !== c.type);
    this.#items.push(c);
    this.#items.sort((a, b) => compareConditionTypes(a.type, b.type));
  }
}
