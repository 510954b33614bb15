import { relative } from 'node:path';
import type { OperatorImages } from './operators.js';
import { repoRoot } from './source.js';
import { formatSeconds, formatSize, table } from './util/format.js';

/** The summary `make images` prints: one row per image, then the shared base and the outputs. */
export function summary(result: OperatorImages): string {
  const root = repoRoot();
  const rows = [['image', 'digest', 'compressed', 'uncompressed', '']];
  for (const image of result.images) {
    rows.push([
      image.name,
      image.digest,
      formatSize(image.compressedSize),
      formatSize(image.uncompressedSize),
      image.cached ? 'unchanged' : 'built',
    ]);
  }
  const baseLayers = new Set(result.images.map((i) => i.layers[0]?.digest));
  const first = result.images[0]?.layers[0];
  const lines = [table(rows), ''];
  if (first !== undefined) {
    lines.push(
      `base layer ${first.digest} (${formatSize(first.size)} compressed, ${formatSize(first.uncompressedSize)} uncompressed), ${
        baseLayers.size === 1
          ? `shared by all ${result.images.length} images`
          : `NOT shared: ${[...baseLayers].join(', ')}`
      }`,
      `  node ${result.base.node.version} (${result.base.node.packageName}, sha256 ${result.base.node.sha256})`,
      ...result.base.packages.map(
        (p) => `  ${p.name} ${p.version} ${p.architecture} .deb sha256 ${p.sha256}`,
      ),
    );
  }
  lines.push(
    `outputs (OCI layout oci/, OCI archive image.oci.tar) under ${relative(root, result.outDir) || '.'}/:`,
  );
  for (const image of result.images) lines.push(`  ${relative(result.outDir, image.archive)}`);
  if (result.indexes.length > 0) {
    lines.push('linux/amd64 + linux/arm64 indexes (OCI layout oci/, OCI archive image.oci.tar):');
    const base = result.arm64Base;
    lines.push(
      `  arm64 base: node ${base.node.version} (${base.node.packageName}, sha256 ${base.node.sha256})`,
    );
    for (const index of result.indexes)
      lines.push(`  ${index.digest}  ${relative(result.outDir, index.archive)}`);
  }
  lines.push(`total ${formatSeconds(result.durationMs)}`);
  return lines.join('\n');
}
