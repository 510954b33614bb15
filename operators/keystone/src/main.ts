#!/usr/bin/env node
import { runOperator } from '@stackops/lib-common/runtime';
import { keystoneOperator } from './operator.js';

await runOperator(keystoneOperator);
