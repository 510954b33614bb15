#!/usr/bin/env node
import { runOperator } from '@stackops/lib-common/runtime';
import { networkAddonsOperator } from './operator.js';

await runOperator(networkAddonsOperator);
