import * as Type from '@sinclair/typebox/type';

/**
 * `metadata` of a custom resource: the API server validates it itself and accepts only `name` and
 * `generateName` in a CRD schema (an empty object would become x-kubernetes-preserve-unknown-fields,
 * which it refuses). Declaring the two keeps it structural and lets CEL rules read `self.metadata.name`.
 */
export const resourceMetadataSchema = Type.Object({
  name: Type.Optional(Type.String()),
  generateName: Type.Optional(Type.String()),
});
