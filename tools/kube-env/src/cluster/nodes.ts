import { versions } from '../versions.js';
import { fakeNodeAnnotation } from './commands.js';

export const fakeNodeName = (index: number): string => `kwok-node-${index}`;

/**
 * A node that kwok manages (selected by annotation). No taints, so DaemonSets land on it without
 * tolerations; its only address is 127.0.0.1, so nothing ever dials off the machine for it.
 */
export function fakeNodeManifest(name: string): Record<string, unknown> {
  const resources = { cpu: '32', memory: '256Gi', pods: '250', 'ephemeral-storage': '1Ti' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: {
        [fakeNodeAnnotation.key]: fakeNodeAnnotation.value,
        'node.alpha.kubernetes.io/ttl': '0',
      },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
      },
    },
    spec: {},
    status: {
      addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
      allocatable: resources,
      capacity: resources,
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        kubeletVersion: versions.kubernetes,
        kubeProxyVersion: versions.kubernetes,
        bootID: '',
        containerRuntimeVersion: 'kwok',
        kernelVersion: '',
        machineID: '',
        osImage: '',
        systemUUID: '',
      },
    },
  };
}

interface NodeList {
  items: Array<{
    metadata: { name: string };
    status?: { conditions?: Array<{ type: string; status: string }> };
  }>;
}

/** Names of the nodes in a NodeList whose Ready condition is True. */
export function readyNodeNames(list: NodeList): Set<string> {
  return new Set(
    list.items
      .filter((node) => node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'))
      .map((node) => node.metadata.name),
  );
}
