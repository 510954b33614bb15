#!/usr/bin/env node
import { baselineCompilersOnly, runOperator } from '@stackops/lib-common/runtime';
import { networkAddonsOperator } from './operator.js';

baselineCompilersOnly();
await runOperator(networkAddonsOperator);
