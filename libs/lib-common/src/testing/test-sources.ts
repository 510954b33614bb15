import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The text of every `*.test.ts` under the package's `src/` and `test/` (node_modules skipped): what a
 * field walk's coverage entries must name (see `assertFieldsCovered`).
 */
export function readTestSources(packageDir: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(p);
      return e.name.endsWith('.test.ts') ? [p] : [];
    });
  return ['src', 'test']
    .flatMap((d) => {
      try {
        return walk(join(packageDir, d));
      } catch {
        return [];
      }
    })
    .map((f) => readFileSync(f, 'utf8'));
}
