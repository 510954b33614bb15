#!/usr/bin/env node
// Loads nothing but node: modules before the version check, so that an older Node reaches it.
import { fileURLToPath } from 'node:url';
import { handOverToRepoNode } from './node-version.js';

if (!handOverToRepoNode(fileURLToPath(import.meta.url))) await import('./cli.js');
