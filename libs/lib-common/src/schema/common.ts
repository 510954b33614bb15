import type { TSchema } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';

/**
 * Metadata is validated by the API server itself. A CRD may only constrain `name` and
 * `generateName` there (anything else, preserve-unknown-fields included, is refused).
 */
export const objectMetaSchema = Type.Object({
  name: Type.Optional(Type.String()),
  generateName: Type.Optional(Type.String()),
});

/** `status.conditions` as upstream lib-common writes it (type, status, severity, reason, message, lastTransitionTime). */
export const conditionListSchema = Type.Array(
  Type.Object({
    type: Type.String(),
    status: Type.String(),
    severity: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String()),
    message: Type.Optional(Type.String()),
    lastTransitionTime: Type.String({ format: 'date-time' }),
  }),
  { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] },
);

/**
 * A kind's whole object: apiVersion, kind, `spec` and an optional `status`; metadata is left to
 * the API server (a CRD may not constrain it).
 */
export const kindSchema = <S extends TSchema, T extends TSchema>(spec: S, status: T, description: string) =>
  Type.Object(
    {
      apiVersion: Type.Optional(Type.String()),
      kind: Type.Optional(Type.String()),
      spec,
      status: Type.Optional(status),
    },
    { description },
  );
