import { formatSize as mb } from '../util/format.js';
import type { WorkloadImages } from './images.js';
import type { LayerName } from './layers.js';

/** What a build prints: each image's name, versions, sizes and digest, then the layers' build times. */
export function formatWorkloadSummary(result: WorkloadImages): string {
  const lines: string[] = [];
  for (const image of Object.values(result.images)) {
    const b = image.built;
    lines.push(
      `${image.name}  (stands in for ${image.replaces})`,
      `  ${Object.entries(image.versions)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
      `  ${mb(b.uncompressedSize)} unpacked, ${mb(b.compressedSize)} compressed, ${b.layers.length} layers, ${b.digest}`,
      ...(image.env.length > 0 ? [`  operators' variable: ${image.env.join(', ')}`] : []),
    );
  }
  const layers = Object.values(result.layers);
  lines.push(
    `layers: ${layers
      .map((l) => `${l.name} ${mb(l.tarSize)}${l.cached ? '' : ` (${l.seconds}s)`}`)
      .join(', ')}${layers.every((l) => l.cached) ? ' (all from the cache)' : ''}`,
  );
  return lines.join('\n');
}

/** The Debian packages (name → version) of every layer, for the record. */
export function debianPackages(result: WorkloadImages): Record<LayerName, Record<string, string>> {
  return Object.fromEntries(Object.values(result.layers).map((l) => [l.name, l.debs])) as Record<
    LayerName,
    Record<string, string>
  >;
}
