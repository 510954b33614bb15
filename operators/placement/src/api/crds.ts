import type { CrdDefinition } from '@stackops/lib-common/schema';
import { PLACEMENT_API_KIND, PLACEMENT_API_PLURAL, PLACEMENT_GROUP, PLACEMENT_VERSION } from './constants.js';
import { placementApiSchema } from './placementapi.js';

export const placementApiCrd: CrdDefinition = {
  group: PLACEMENT_GROUP,
  kind: PLACEMENT_API_KIND,
  plural: PLACEMENT_API_PLURAL,
  singular: 'placementapi',
  scope: 'Namespaced',
  versions: [
    {
      name: PLACEMENT_VERSION,
      served: true,
      storage: true,
      schema: placementApiSchema,
      statusSubresource: true,
      printerColumns: [
        {
          name: 'NetworkAttachments',
          type: 'string',
          jsonPath: '.spec.networkAttachments',
          description: 'NetworkAttachments',
        },
        { name: 'Status', type: 'string', jsonPath: '.status.conditions[0].status', description: 'Status' },
        {
          name: 'Message',
          type: 'string',
          jsonPath: '.status.conditions[0].message',
          description: 'Message',
        },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
      ],
    },
  ],
};

/** Every CRD this package ships, in the order the chart installs them. */
export const crdDefinitions: CrdDefinition[] = [placementApiCrd];
