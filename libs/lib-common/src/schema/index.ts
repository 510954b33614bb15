/**
 * `@stackops/lib-common/schema` — TypeBox building blocks of the operators' CRD schemas (bounded
 * inputs, CEL rules, upstream's shared types). Imports nothing of lib-common.
 */

export {
  boundInputSchema,
  CONFIG_TEXT_MAX_LENGTH,
  DEFAULT_INPUT_BOUNDS,
  type InputBounds,
  unboundedFields,
} from './bounds.js';
export { conditionListSchema, kindSchema, objectMetaSchema } from './common.js';
export {
  buildCrd,
  type CelRule,
  type CrdDefinition,
  type CrdVersion,
  crdFreeFormObjects,
  crdVersionCases,
  crdVersionSchemas,
  freeFormObjects,
  type PrinterColumn,
  toOpenApiSchema,
  UNKNOWN_FIELD_RULE,
} from './crd.js';
export {
  assertFieldsCovered,
  type FieldCoverage,
  type FieldWalkOptions,
  type FieldWalkResult,
  schemaFieldPaths,
  walkFields,
} from './field-walk.js';
