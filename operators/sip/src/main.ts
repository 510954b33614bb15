#!/usr/bin/env node
import { baselineCompilersOnly, runOperator } from '@stackops/lib-common/runtime';
import { sipOperator } from './operator.js';

baselineCompilersOnly();
await runOperator(sipOperator);
