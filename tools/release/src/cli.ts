#!/usr/bin/env node
import { resolve } from 'node:path';
import { syncChartVersions } from './chart-versions.js';

// `sync-chart-versions [--check] [root]`: run by `npm run version-packages` after `changeset version`.
const args = process.argv.slice(2);
const check = args.includes('--check');
const root = resolve(args.find((a) => !a.startsWith('--')) ?? process.cwd());
const drifts = syncChartVersions(root, !check);
for (const d of drifts) {
  console.log(`${d.chart}: ${d.field} ${d.actual ?? '(unset)'} -> ${d.expected}${check ? ' (drift)' : ''}`);
}
if (check && drifts.length > 0) process.exit(1);
if (drifts.length === 0) console.log('charts are in step with their packages');
