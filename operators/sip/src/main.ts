#!/usr/bin/env node
import { runOperator } from '@stackops/lib-common/runtime';
import { sipOperator } from './operator.js';

await runOperator(sipOperator);
