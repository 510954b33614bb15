export * from './logging/index.js';
