import { Type } from '@sinclair/typebox';

/** Metadata is validated by the API server itself; a CRD schema keeps it as a plain object. */
export const objectMetaSchema = Type.Object({}, { 'x-kubernetes-preserve-unknown-fields': true });

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
