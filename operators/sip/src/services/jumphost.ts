import { Kinds } from '@stackops/lib-common/client';
import { SSH_PORT } from '../api/constants.js';
import type { JumpHostService } from '../api/services.js';
import { hostIp } from '../hostdata/host-data.js';
import { instanceLabels } from '../resources/labels.js';
import {
  configHash,
  configMap,
  configSecret,
  type DesiredObject,
  DRAIN_SECONDS,
  nodePort,
  nodePortService,
  nodeSelectorOf,
  serviceDeployment,
  tcpPort,
} from '../resources/objects.js';
import { HOST_SCRIPT, HOSTS_FILE } from '../templates/host-script.js';
import { PRIVATE_KEYS_DIR, renderSshConfig, type SshHost } from '../templates/ssh-config.js';
import { authorizedKeyProblem } from './authorized-keys.js';
import { allHosts, type RenderContext } from './context.js';
import { ServiceInputError } from './errors.js';

const jumpHostName = (cluster: string): string => `jumphost-${cluster}`;

const HOME = '/home/ubuntu';
const SCRIPTS_DIR = '/opt/sip/bin';

/** One entry of the hosts file: the host and how to reach its BMC (credentials included: it is a Secret). */
interface HostsFileEntry {
  name: string;
  bmc?: {
    ip: string;
    hostname: string;
    port?: number;
    driver: string;
    protocol: string;
    address: string;
    username: string;
    password: string;
  };
}

function hostsFile(ctx: RenderContext): HostsFileEntry[] {
  return allHosts(ctx).map((h) => ({
    name: h.host.name,
    ...(h.bmc
      ? {
          bmc: {
            ip: h.bmc.host,
            hostname: h.bmc.hostname,
            ...(h.bmc.port !== undefined ? { port: h.bmc.port } : {}),
            driver: h.bmc.driver,
            protocol: h.bmc.protocol,
            address: h.bmc.address,
            username: h.bmc.username,
            password: h.bmc.password,
          },
        }
      : {}),
  }));
}

function validatedAuthorizedKeys(keys: readonly string[]): string {
  keys.forEach((key, i) => {
    const problem = authorizedKeyProblem(key);
    if (problem)
      throw new ServiceInputError(
        `jumpHost.sshAuthorizedKeys[${i}] is not a valid authorized key: ${problem}`,
      );
  });
  return keys.length > 0 ? `${keys.join('\n')}\n` : '';
}

/**
 * The jump host: a Service (ssh on the nodePort), a Secret with the hosts file and ssh_config, a
 * ConfigMap with authorized_keys and the `host` utility, and the Deployment, whose pods resolve
 * every host name through hostAliases. `privateKeyNames` are the keys of the nodeSSHPrivateKeys Secret.
 */
export function renderJumpHost(
  ctx: RenderContext,
  service: JumpHostService,
  privateKeyNames: readonly string[],
): DesiredObject[] {
  const name = jumpHostName(ctx.cluster.name);
  const { namespace } = ctx.cluster;
  const labels = instanceLabels('jumphost', 'jumphost', name);
  const sshHosts: SshHost[] = allHosts(ctx).flatMap((h) => {
    const ip = hostIp(h, service.nodeInterfaceId);
    return ip ? [{ name: h.host.name, ip }] : [];
  });
  const secretData = {
    hosts: `${JSON.stringify(hostsFile(ctx), null, 2)}\n`,
    ssh_config: renderSshConfig(privateKeyNames, sshHosts),
  };
  const configMapData = {
    'authorized-keys': validatedAuthorizedKeys(service.sshAuthorizedKeys ?? []),
    host: HOST_SCRIPT,
  };
  const noProxy = service.bmc?.proxy
    ? []
    : [
        { name: 'NO_PROXY', value: '*' },
        { name: 'no_proxy', value: '*' },
      ];
  const image = service.image || ctx.images.jumpHost;
  const objects = {
    service: nodePortService(name, namespace, labels, [nodePort('ssh', SSH_PORT, service.nodePort)]),
    secret: configSecret(name, namespace, labels, secretData),
    configMap: configMap(name, namespace, labels, configMapData),
    deployment: serviceDeployment(
      name,
      namespace,
      labels,
      configHash(secretData, configMapData, privateKeyNames),
      {
        ...nodeSelectorOf(service.nodeLabels),
        securityContext: { fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
        hostAliases: sshHosts.map((h) => ({ ip: h.ip, hostnames: [h.name] })),
        terminationGracePeriodSeconds: DRAIN_SECONDS,
        initContainers: [
          {
            name: 'ssh-perms',
            image,
            imagePullPolicy: 'IfNotPresent',
            command: ['/bin/sh', '-c', `mkdir -p -m700 ${HOME}/.ssh`],
          },
        ],
        containers: [
          {
            name: 'jumphost',
            image,
            imagePullPolicy: 'IfNotPresent',
            ports: [tcpPort('ssh', SSH_PORT)],
            env: noProxy,
            livenessProbe: { tcpSocket: { port: 'ssh' }, initialDelaySeconds: 15, periodSeconds: 10 },
            readinessProbe: { tcpSocket: { port: 'ssh' }, initialDelaySeconds: 5, periodSeconds: 20 },
            // a rollout (hosts changed) lets open ssh sessions finish, up to the grace period
            lifecycle: {
              preStop: {
                exec: {
                  command: ['/bin/sh', '-c', 'while [ "$(pgrep -c -x sshd)" -gt 1 ]; do sleep 1; done'],
                },
              },
            },
            volumeMounts: [
              { name: 'data', mountPath: HOSTS_FILE, subPath: 'hosts' },
              { name: 'scripts', mountPath: SCRIPTS_DIR },
              { name: 'data', mountPath: `${HOME}/.ssh/config`, subPath: 'ssh_config' },
              { name: 'ssh-private-keys', mountPath: PRIVATE_KEYS_DIR },
              {
                name: 'authorized-keys',
                mountPath: `${HOME}/.ssh/authorized_keys`,
                subPath: 'authorized_keys',
              },
            ],
          },
        ],
        volumes: [
          { name: 'data', secret: { secretName: name, defaultMode: 0o440 } },
          { name: 'scripts', configMap: { name, items: [{ key: 'host', path: 'host', mode: 0o555 }] } },
          {
            name: 'ssh-private-keys',
            secret: { secretName: service.nodeSSHPrivateKeys, defaultMode: 0o440 },
          },
          // group-readable: the files belong to root, and the ubuntu user reads them through fsGroup
          {
            name: 'authorized-keys',
            configMap: { name, items: [{ key: 'authorized-keys', path: 'authorized_keys', mode: 0o640 }] },
          },
        ],
      },
    ),
  };
  return [
    { kind: Kinds.Service, object: objects.service },
    { kind: Kinds.Secret, object: objects.secret },
    { kind: Kinds.ConfigMap, object: objects.configMap },
    { kind: Kinds.Deployment, object: objects.deployment },
  ];
}
