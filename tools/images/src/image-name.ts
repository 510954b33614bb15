/** `ghcr.io/stackops/keystone-operator:0.1.0` → registry, repository, tag. */
export interface ImageName {
  registry: string;
  repository: string;
  tag: string;
}

const component = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const tagPattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * Parses a full image reference with an explicit registry and tag (no digest, no Docker Hub
 * shorthand): the images built here are named exactly as the charts reference them.
 */
export function parseImageName(reference: string): ImageName {
  const slash = reference.indexOf('/');
  const colon = reference.lastIndexOf(':');
  const bad = (why: string) =>
    new Error(`image name "${reference}": ${why} (expected <registry>/<repository>:<tag>)`);
  if (slash <= 0) throw bad('no registry');
  if (colon < slash) throw bad('no tag');
  const registry = reference.slice(0, slash);
  const repository = reference.slice(slash + 1, colon);
  const tag = reference.slice(colon + 1);
  if (!/^[A-Za-z0-9.-]+(?::\d+)?$/.test(registry) || !/[.:]|^localhost$/.test(registry)) {
    throw bad(`"${registry}" is not a registry host`);
  }
  if (repository === '' || !repository.split('/').every((part) => component.test(part))) {
    throw bad(`"${repository}" is not a repository path`);
  }
  if (!tagPattern.test(tag)) throw bad(`"${tag}" is not a tag`);
  return { registry, repository, tag };
}

export function formatImageName(name: ImageName): string {
  return `${name.registry}/${name.repository}:${name.tag}`;
}
