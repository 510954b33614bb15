/**
 * Condition types and messages specific to the keystone kinds (upstream api/v1beta1/conditions.go).
 * The generic ones (InputReady, DBReady, …) live in lib-common's conditions table.
 * `%s` is replaced by the caller; upstream's spelling ("occured") is kept so messages match.
 */
export const KeystoneConditionTypes = {
  KeystoneAPIReady: 'KeystoneAPIReady',
  AdminServiceClientReady: 'AdminServiceClientReady',
  KeystoneServiceOSServiceReady: 'KeystoneServiceOSServiceReady',
  KeystoneServiceOSEndpointsReady: 'KeystoneServiceOSEndpointsReady',
  KeystoneServiceOSUserReady: 'KeystoneServiceOSUserReady',
} as const;

export const KeystoneMessages = {
  KeystoneAPIReadyInit: 'KeystoneAPI not started',
  KeystoneAPIReady: 'KeystoneAPI ready',
  KeystoneAPIReadyNotFound: 'KeystoneAPI not found',
  KeystoneAPIReadyWaiting: 'KeystoneAPI not yet ready',
  KeystoneAPIReadyError: 'KeystoneAPI error occured %s',
  AdminServiceClientReadyInit: 'Admin client not started',
  AdminServiceClientReady: 'Admin client ready',
  AdminServiceClientReadyWaiting: 'Admin client not yet ready',
  AdminServiceClientReadyError: 'Admin client error occured %s',
  KeystoneServiceOSServiceReadyInit: 'Keystone Service registration not started',
  KeystoneServiceOSServiceReady: 'Keystone Service %s - %s ready',
  KeystoneServiceOSServiceReadyError: 'Keystone Service error occured %s',
  KeystoneServiceOSEndpointsReadyInit: 'Keystone Endpoints registration not started',
  KeystoneServiceOSEndpointsReady: 'Keystone Endpoints ready: %s',
  KeystoneServiceOSEndpointsReadyError: 'Keystone Endpoints error occured %s',
  KeystoneServiceOSUserReadyInit: 'Keystone Service user registration not started',
  KeystoneServiceOSUserReady: 'Keystone Service user %s ready',
  KeystoneServiceOSUserReadyWaiting: 'Keystone Service user not yet ready',
  KeystoneServiceOSUserReadyError: 'Keystone Service user error occured %s',
} as const;
