export { counter, gauge, histogram } from './registry.js';
