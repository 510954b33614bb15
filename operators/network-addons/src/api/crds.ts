import type { CrdDefinition, CrdVersion, PrinterColumn } from '@stackops/lib-common/schema';
import {
  NAO_DEPRECATED_VERSION,
  NAO_GROUP,
  NAO_KIND,
  NAO_PLURAL,
  NAO_SINGULAR,
  NAO_STORAGE_VERSION,
} from './constants.js';
import { networkAddonsConfigSchema } from './network-addons-config.js';

const conditionColumn = (type: string, description: string): PrinterColumn => ({
  name: type,
  type: 'string',
  jsonPath: `.status.conditions[?(@.type=="${type}")].status`,
  description,
});

const printerColumns: PrinterColumn[] = [
  conditionColumn('Available', 'All requested components are deployed and ready'),
  conditionColumn('Progressing', 'Components are being deployed or updated'),
  conditionColumn('Degraded', 'The configuration could not be applied'),
  {
    name: 'ObservedVersion',
    type: 'string',
    jsonPath: '.status.observedVersion',
    description: 'Operator version whose configuration is fully rolled out',
  },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

const version = (name: string, storage: boolean): CrdVersion => ({
  name,
  served: true,
  storage,
  schema: networkAddonsConfigSchema,
  statusSubresource: true,
  printerColumns,
  ...(storage ? {} : { deprecated: true }),
});

/** Both versions share one schema; no conversion is needed (strategy None). */
export const networkAddonsConfigCrd: CrdDefinition = {
  group: NAO_GROUP,
  kind: NAO_KIND,
  plural: NAO_PLURAL,
  singular: NAO_SINGULAR,
  scope: 'Cluster',
  versions: [version(NAO_STORAGE_VERSION, true), version(NAO_DEPRECATED_VERSION, false)],
};

/** Every CRD this package ships, in the order the chart installs them. */
export const crdDefinitions: CrdDefinition[] = [networkAddonsConfigCrd];
