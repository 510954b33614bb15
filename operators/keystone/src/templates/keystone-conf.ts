/**
 * keystone.conf (Eta). Data: see `KeystoneConfigData` in config-files.ts.
 * Caching goes to memcached when a memcachedInstance is set (upstream: dogpile.cache.memcached
 * without TLS); the fernet repository holds `fernetMaxActiveKeys` keys mounted from the Secret;
 * notifications go to the TransportURL's RabbitMQ when one is set (quorum queues if its cluster uses them).
 */
export const keystoneConfTemplate = `[DEFAULT]
use_stderr=true

[cache]
<% if (it.memcachedServers) { -%>
<% if (it.memcachedTls) { -%>
backend = oslo_cache.memcache_pool
memcache_servers=<%= it.memcachedServers %>
memcache_socket_timeout = 0.5
memcache_pool_connection_get_timeout = 1
<% if (it.memcachedMtls) { -%>
tls_certfile=/etc/pki/tls/certs/mtls.crt
tls_keyfile=/etc/pki/tls/private/mtls.key
tls_cafile=/etc/pki/tls/certs/mtls-ca.crt
<% } -%>
<% } else { -%>
backend = dogpile.cache.memcached
memcache_servers=<%= it.memcachedServersWithInet %>
<% } -%>
memcache_dead_retry = 30
enabled=true
tls_enabled=<%= it.memcachedTls %>
<% } else { -%>
enabled=false
<% } -%>

[database]
max_retries=-1
db_max_retries=-1
connection=<%= it.databaseConnection %>

[oslo_policy]
enforce_new_defaults=<%= it.enableSecureRBAC %>
enforce_scope=<%= it.enableSecureRBAC %>

[fernet_tokens]
key_repository=/etc/keystone/fernet-keys
max_active_keys=<%= it.fernetMaxActiveKeys %>

[credential]
key_repository=/etc/keystone/credential-keys
<% if (it.transportUrl) { -%>

[oslo_messaging_notifications]
driver=messagingv2
transport_url=<%= it.transportUrl %>
topics = notifications, barbican_notifications
<% if (it.quorumQueues) { -%>

[oslo_messaging_rabbit]
rabbit_quorum_queue=true
rabbit_transient_quorum_queue=true
amqp_durable_queues=true
<% } -%>
<% } -%>
`;
