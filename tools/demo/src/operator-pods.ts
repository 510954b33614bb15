import { Kinds, type KubeClient, type KubeObject } from '@stackops/lib-common/client';
import { RELEASE, RELEASE_NAMESPACE } from './umbrella.js';

interface PodShape extends KubeObject {
  spec: { nodeName?: string };
  status?: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { image: string; imageID: string; restartCount: number }[];
  };
}

/** An operator as a pod of the umbrella release: where it runs, from which image, whether Ready. */
export interface OperatorPod {
  name: string;
  node: string;
  podIP: string;
  ready: boolean;
  restarts: number;
  image: string;
  /** The config digest of the image the kubelet runs. */
  imageID: string;
}

export async function operatorPods(client: KubeClient): Promise<OperatorPod[]> {
  const { items } = await client.list<PodShape>(Kinds.Pod, {
    namespace: RELEASE_NAMESPACE,
    labelSelector: `app.kubernetes.io/instance=${RELEASE}`,
  });
  return items
    .filter((p) => !p.metadata.deletionTimestamp)
    .map((p) => {
      const c = p.status?.containerStatuses?.[0];
      return {
        name: p.metadata.name ?? '',
        node: p.spec.nodeName ?? '',
        podIP: p.status?.podIP ?? '',
        ready: p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') ?? false,
        restarts: c?.restartCount ?? 0,
        image: c?.image ?? '',
        imageID: c?.imageID ?? '',
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}
