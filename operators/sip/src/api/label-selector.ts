import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';

/** metav1.LabelSelectorRequirement, with the API server's own rules on `values` as CEL. */
export const labelSelectorRequirementSchema = Type.Object(
  {
    key: Type.String({ minLength: 1, description: 'The label key the selector applies to.' }),
    operator: Type.Union(
      [Type.Literal('In'), Type.Literal('NotIn'), Type.Literal('Exists'), Type.Literal('DoesNotExist')],
      { description: "A key's relationship to a set of values." },
    ),
    values: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: 64,
        description: 'Values for In and NotIn (non-empty); must be empty for Exists and DoesNotExist.',
      }),
    ),
  },
  {
    'x-kubernetes-validations': [
      {
        rule: "self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : (!has(self.values) || size(self.values) == 0)",
        message:
          'labelSelector.matchExpressions: values must be non-empty for operator In and NotIn, and empty for Exists and DoesNotExist',
      },
    ],
  },
);

/** metav1.LabelSelector: matchLabels AND matchExpressions; an empty selector matches every host. */
export const labelSelectorSchema = Type.Object(
  {
    matchLabels: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'Labels a host must carry with these values.',
      }),
    ),
    matchExpressions: Type.Optional(
      Type.Array(labelSelectorRequirementSchema, {
        maxItems: 32,
        description: 'Set-based requirements; all must hold.',
      }),
    ),
  },
  { 'x-kubernetes-map-type': 'atomic', description: 'Selects the BareMetalHosts eligible for a role.' },
);

export type LabelSelector = Static<typeof labelSelectorSchema>;
export type LabelSelectorRequirement = Static<typeof labelSelectorRequirementSchema>;
