#!/usr/bin/env node
import { runOperator } from '@stackops/lib-common/runtime';
import { placementOperator } from './operator.js';

await runOperator(placementOperator);
