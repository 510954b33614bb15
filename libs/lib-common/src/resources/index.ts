// Temporary: the old one-barrel entry point, until every operator imports the layers it uses
// (`/client`, `/objects`, `/openstack`) directly. Removed once nothing imports it.
export * from '../client/index.js';
export * from '../objects/index.js';
export * from '../openstack/index.js';
