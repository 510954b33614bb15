/** The SIPCluster API (and the BareMetalHost subset SIP reads), without the controllers. */
export * from './api/index.js';
