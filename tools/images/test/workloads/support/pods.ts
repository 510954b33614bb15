import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkloadImage } from '../../../src/workloads/index.js';
import { fromImage } from './images.js';
import type { ContainerSpec, Mount } from './sandbox.js';

/**
 * What kubelet would do with a pod spec the operators rendered, for the sandbox: volumes from
 * Secrets, ConfigMaps and emptyDirs materialised as folders, env resolved from Secret and ConfigMap
 * keys, the container's command/args/user/privilege settings applied to the image's config. Only
 * what the operators' pods use is supported; anything else throws, so nothing is silently skipped.
 */

type Json = Record<string, unknown>;

export interface KubeObjects {
  secret(name: string): Record<string, string>;
  configMap(name: string): Record<string, string>;
}

interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

interface Volume {
  name: string;
  secret?: { secretName: string; defaultMode?: number; items?: KeyToPath[] };
  configMap?: { name: string; defaultMode?: number; items?: KeyToPath[] };
  emptyDir?: Json;
}

interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  readOnly?: boolean;
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string };
    configMapKeyRef?: { name: string; key: string };
  };
}

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  volumeMounts?: VolumeMount[];
  workingDir?: string;
  securityContext?: {
    runAsUser?: number;
    runAsGroup?: number;
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
}

export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  securityContext?: { runAsUser?: number; runAsGroup?: number; fsGroup?: number };
}

function writeFiles(
  dir: string,
  data: Record<string, string>,
  defaultMode: number,
  items?: KeyToPath[],
): void {
  mkdirSync(dir, { recursive: true });
  const entries = items
    ? items.map((i) => [i.key, i.path, i.mode ?? defaultMode] as const)
    : Object.keys(data).map((k) => [k, k, defaultMode] as const);
  for (const [key, path, mode] of entries) {
    const value = data[key];
    if (value === undefined) throw new Error(`volume item ${key} is not in the object`);
    const file = join(dir, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, value);
    chmodSync(file, mode);
  }
}

/** The containers of a pod, ready for `Node.run`; `podDir` holds the pod's volumes. */
export function podContainers(
  pod: PodSpec,
  objects: KubeObjects,
  images: Record<string, WorkloadImage>,
  podDir: string,
): ContainerSpec[] {
  const volumes = new Map<string, string>();
  for (const v of pod.volumes ?? []) {
    const dir = join(podDir, 'volumes', v.name);
    if (v.secret)
      writeFiles(dir, objects.secret(v.secret.secretName), v.secret.defaultMode ?? 0o644, v.secret.items);
    else if (v.configMap)
      writeFiles(
        dir,
        objects.configMap(v.configMap.name),
        v.configMap.defaultMode ?? 0o644,
        v.configMap.items,
      );
    else if (v.emptyDir) {
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o777);
    } else
      throw new Error(`volume ${v.name}: only secret, configMap and emptyDir volumes are supported here`);
    volumes.set(v.name, dir);
  }
  if (pod.securityContext?.fsGroup !== undefined) {
    throw new Error('fsGroup is not supported by the sandbox (no operator pod run here uses it)');
  }
  return pod.containers.map((c) => {
    const image = images[c.image];
    if (!image) throw new Error(`container ${c.name}: image ${c.image} is not one of the workload images`);
    const env: Record<string, string> = {};
    for (const e of c.env ?? []) {
      if (e.value !== undefined) env[e.name] = e.value;
      else if (e.valueFrom?.secretKeyRef)
        env[e.name] = must(objects.secret(e.valueFrom.secretKeyRef.name), e.valueFrom.secretKeyRef.key);
      else if (e.valueFrom?.configMapKeyRef)
        env[e.name] = must(
          objects.configMap(e.valueFrom.configMapKeyRef.name),
          e.valueFrom.configMapKeyRef.key,
        );
      else throw new Error(`env ${e.name}: only values and Secret/ConfigMap keys are supported here`);
    }
    const mounts: Mount[] = (c.volumeMounts ?? []).map((m) => {
      const dir = volumes.get(m.name);
      if (!dir) throw new Error(`container ${c.name}: no volume ${m.name}`);
      return {
        source: m.subPath ? join(dir, m.subPath) : dir,
        target: m.mountPath,
        readOnly: m.readOnly ?? false,
      };
    });
    const sc = c.securityContext ?? {};
    if (sc.capabilities?.add?.length)
      throw new Error(`container ${c.name}: added capabilities are not supported here`);
    const uid = sc.runAsUser ?? pod.securityContext?.runAsUser;
    const gid = sc.runAsGroup ?? pod.securityContext?.runAsGroup;
    return fromImage(image, {
      name: c.name,
      ...(c.command ? { command: c.command } : {}),
      ...(c.args ? { args: c.args } : {}),
      env,
      ...(uid !== undefined ? { uid } : {}),
      ...(gid !== undefined ? { gid } : {}),
      noNewPrivileges: sc.allowPrivilegeEscalation === false,
      dropCapabilities: sc.capabilities?.drop ?? [],
      mounts,
      ...(c.workingDir ? { workingDir: c.workingDir } : {}),
    });
  });
}

function must(data: Record<string, string>, key: string): string {
  const value = data[key];
  if (value === undefined) throw new Error(`key ${key} is missing`);
  return value;
}
