/**
 * `@stackops/lib-common/conditions` — status conditions as upstream lib-common defines them: the
 * `Conditions` set (init, mark, mirror, Ready computed from the others), upstream's types, reasons
 * and messages (`ConditionType`, `Reason`, the catalog), and the failure table that turns an error
 * into what a user reads (`failureMessage`). Imports only `client`.
 */

export {
  ConditionCatalog,
  type ConditionMessages,
  ConditionStatus,
  ConditionType,
  formatMessage,
  messagesOf,
  Reason,
  Severity,
  type StandardConditionType,
} from './catalog.js';
export {
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
export { Conditions, type ConditionsOptions } from './conditions.js';
export {
  cutMessage,
  type FailureMessage,
  FailureMessages,
  failureMessage,
  isBenignFailure,
  MAX_MESSAGE_LENGTH,
  subjectText,
} from './messages.js';
export { compareByPriority, higherPriority, mirrorConditions, priorityGroup } from './mirror.js';
