#!/usr/bin/env node
import { baselineCompilersOnly, runOperator } from '@stackops/lib-common/runtime';
import { sipOperator } from './operator.js';

await runOperator(sipOperator);
// Once started: a built-in module node loads after this compiles from source (ADR 0056, 0057).
baselineCompilersOnly();
