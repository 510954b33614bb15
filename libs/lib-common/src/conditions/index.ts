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
