/**
 * placement.conf (Eta). Connection, keystone_authtoken and policy file as upstream renders them;
 * `customServiceConfig` is shipped beside it as custom.conf and read after it by oslo.config.
 */
export const placementConfTemplate = `[DEFAULT]
# oslo.log rotates the file the -log container tails
max_logfile_count=5
max_logfile_size_mb=50
log_rotation_type=size
log_file = <%= it.logFile %>
debug = true

[placement_database]
connection = <%= it.databaseConnection %>

[api]
auth_strategy = keystone

[keystone_authtoken]
www_authenticate_uri = <%= it.keystonePublicURL %>
auth_url = <%= it.keystoneInternalURL %>
<% if (it.applicationCredential) { -%>
auth_type = v3applicationcredential
application_credential_id = <%= it.applicationCredential.id %>
application_credential_secret = <%= it.applicationCredential.secret %>
<% } else { -%>
auth_type = password
username = <%= it.serviceUser %>
password = <%= it.servicePassword %>
user_domain_name = Default
project_domain_name = Default
project_name = service
<% } -%>
interface = internal
service_type = placement
<% if (it.region) { -%>
region_name = <%= it.region %>
<% } -%>

[oslo_policy]
policy_file = /etc/placement/policy.yaml
`;

export interface PlacementConfParams {
  logFile: string;
  databaseConnection: string;
  keystonePublicURL: string;
  keystoneInternalURL: string;
  serviceUser: string;
  servicePassword: string;
  /** From `spec.auth.applicationCredentialSecret` (keys AC_ID, AC_SECRET): replaces the password login. */
  applicationCredential?: { id: string; secret: string } | undefined;
  region: string;
}
