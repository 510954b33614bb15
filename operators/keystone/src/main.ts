#!/usr/bin/env node
import { baselineCompilersOnly, runOperator } from '@stackops/lib-common/runtime';
import { keystoneOperator } from './operator.js';

baselineCompilersOnly();
await runOperator(keystoneOperator);
