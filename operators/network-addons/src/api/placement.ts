import type { Static } from '@sinclair/typebox';
import * as Type from '@sinclair/typebox/type';

/**
 * The core/v1 scheduling types `placementConfiguration` embeds (Affinity, Toleration), written out
 * so the API server validates them and `kubectl explain` documents them.
 */

const stringList = (description: string) => Type.Array(Type.String(), { description });

const labelSelectorRequirement = Type.Object({
  key: Type.String({ description: 'The label key the selector applies to.' }),
  operator: Type.String({ description: 'In, NotIn, Exists or DoesNotExist.' }),
  values: Type.Optional(stringList('Values for In/NotIn; empty for Exists/DoesNotExist.')),
});

export const labelSelectorSchema = Type.Object(
  {
    matchExpressions: Type.Optional(Type.Array(labelSelectorRequirement)),
    matchLabels: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

const nodeSelectorRequirement = Type.Object({
  key: Type.String({ description: 'The label key the selector applies to.' }),
  operator: Type.String({ description: 'In, NotIn, Exists, DoesNotExist, Gt or Lt.' }),
  values: Type.Optional(stringList('Values; one integer for Gt/Lt, empty for Exists/DoesNotExist.')),
});

const nodeSelectorTerm = Type.Object(
  {
    matchExpressions: Type.Optional(Type.Array(nodeSelectorRequirement)),
    matchFields: Type.Optional(Type.Array(nodeSelectorRequirement)),
  },
  { 'x-kubernetes-map-type': 'atomic' },
);

const nodeAffinity = Type.Object({
  requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(
    Type.Object({ nodeSelectorTerms: Type.Array(nodeSelectorTerm) }, { 'x-kubernetes-map-type': 'atomic' }),
  ),
  preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
    Type.Array(
      Type.Object({
        weight: Type.Integer({ format: 'int32', minimum: 1, maximum: 100 }),
        preference: nodeSelectorTerm,
      }),
    ),
  ),
});

const podAffinityTerm = Type.Object({
  labelSelector: Type.Optional(labelSelectorSchema),
  namespaceSelector: Type.Optional(labelSelectorSchema),
  namespaces: Type.Optional(stringList('Namespaces the labelSelector applies to.')),
  topologyKey: Type.String({ description: 'Node label whose value defines the co-location domain.' }),
  matchLabelKeys: Type.Optional(stringList('Pod label keys merged into labelSelector.')),
  mismatchLabelKeys: Type.Optional(stringList('Pod label keys merged into labelSelector as NotIn.')),
});

const podAffinity = Type.Object({
  requiredDuringSchedulingIgnoredDuringExecution: Type.Optional(Type.Array(podAffinityTerm)),
  preferredDuringSchedulingIgnoredDuringExecution: Type.Optional(
    Type.Array(
      Type.Object({
        weight: Type.Integer({ format: 'int32', minimum: 1, maximum: 100 }),
        podAffinityTerm,
      }),
    ),
  ),
});

export const affinitySchema = Type.Object(
  {
    nodeAffinity: Type.Optional(nodeAffinity),
    podAffinity: Type.Optional(podAffinity),
    podAntiAffinity: Type.Optional(podAffinity),
  },
  { description: 'Pod scheduling constraints (core/v1 Affinity).' },
);

export const tolerationSchema = Type.Object({
  key: Type.Optional(
    Type.String({ description: 'Taint key; empty with operator Exists matches all taints.' }),
  ),
  operator: Type.Optional(Type.String({ description: 'Exists or Equal (default Equal).' })),
  value: Type.Optional(Type.String({ description: 'Taint value for operator Equal.' })),
  effect: Type.Optional(
    Type.String({ description: 'NoSchedule, PreferNoSchedule or NoExecute; empty = all.' }),
  ),
  tolerationSeconds: Type.Optional(
    Type.Integer({ format: 'int64', description: 'How long a NoExecute taint is tolerated.' }),
  ),
});

const placementFor = (description: string) =>
  Type.Object(
    {
      nodeSelector: Type.Optional(
        Type.Record(Type.String(), Type.String(), { description: 'Node labels the pods must match.' }),
      ),
      affinity: Type.Optional(affinitySchema),
      tolerations: Type.Optional(Type.Array(tolerationSchema, { description: 'Taints the pods tolerate.' })),
    },
    { description },
  );

export const placementSchema = placementFor('Where the pods of a component run.');

export const placementConfigurationSchema = Type.Object(
  {
    infra: Type.Optional(
      placementFor(
        'Placement of infrastructure components (KubeMacPool, KubeSecondaryDNS, kubevirt-ipam-controller Deployments).',
      ),
    ),
    workloads: Type.Optional(
      placementFor(
        'Placement of the per-node components (CNI plugins, markers, NMState handler DaemonSets).',
      ),
    ),
  },
  { description: 'Node placement of the deployed components.' },
);

export type Affinity = Static<typeof affinitySchema>;
export type Toleration = Static<typeof tolerationSchema>;
export type Placement = Static<typeof placementSchema>;
export type PlacementConfiguration = Static<typeof placementConfigurationSchema>;
