#!/usr/bin/env node
import { baselineCompilersOnly, runOperator } from '@stackops/lib-common/runtime';
import { placementOperator } from './operator.js';

baselineCompilersOnly();
await runOperator(placementOperator);
