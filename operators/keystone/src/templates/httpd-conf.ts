/**
 * httpd.conf (Eta): keystone's WSGI app on port 5000, one virtual host per endpoint type.
 * Data: `vhosts` ({endpoint, serverName, tls, certificateFile, keyFile, override}[]),
 * `processNumber`, `timeout`. As upstream: TLS directives per vhost, the customConfigSecret files
 * and `conf_custom/*.conf` (extraMounts) included in each vhost. Unlike upstream, every WSGI process
 * loads Keystone when it starts (process-group and application-group on WSGIScriptAlias), not on
 * its first request: the readiness probe reaches one public process, and a process it never
 * reached (the internal vhost's above all) made its first clients wait seconds, past their
 * timeouts on a loaded node.
 */
export const httpdConfTemplate = `ServerTokens Prod
ServerSignature Off
TraceEnable Off
PidFile run/httpd.pid
ServerRoot "/etc/httpd"
ServerName "localhost.localdomain"

User apache
Group apache

Listen 5000

TypesConfig /etc/mime.types

Include conf.modules.d/*.conf
Include conf.d/*.conf

LogFormat "%h %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-Agent}i\\"" combined
LogFormat "%{X-Forwarded-For}i %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-Agent}i\\"" proxy

SetEnvIf X-Forwarded-For "^.*\\..*\\..*\\..*" forwarded
CustomLog /dev/stdout combined env=!forwarded
CustomLog /dev/stdout proxy env=forwarded
ErrorLog /dev/stdout

<% it.vhosts.forEach(function (v) { -%>
# <%= v.endpoint %> vhost <%= v.serverName %> configuration
<VirtualHost *:5000>
  ServerName <%= v.serverName %>
  TimeOut <%= it.timeout %>

  <IfVersion >= 2.4>
    ErrorLogFormat "%M"
  </IfVersion>
  ErrorLog /dev/stdout
  SetEnvIf X-Forwarded-For "^.*\\..*\\..*\\..*" forwarded
  CustomLog /dev/stdout combined env=!forwarded
  CustomLog /dev/stdout proxy env=forwarded
<% if (v.tls) { -%>

  SetEnvIf X-Forwarded-Proto https HTTPS=1

  ## SSL directives
  SSLEngine on
  SSLCertificateFile      "<%= v.certificateFile %>"
  SSLCertificateKeyFile   "<%= v.keyFile %>"
<% } -%>

  ## WSGI configuration
  WSGIProcessGroup <%= v.endpoint %>
  WSGIApplicationGroup %{GLOBAL}
  WSGIPassAuthorization On
  WSGIDaemonProcess <%= v.endpoint %> processes=<%= it.processNumber %> threads=1 user=keystone group=keystone display-name=<%= v.endpoint %>
  WSGIScriptAlias / /usr/bin/keystone-wsgi-public process-group=<%= v.endpoint %> application-group=%{GLOBAL}
<% if (v.override) { -%>
  Include conf/httpd_custom_<%= v.endpoint %>_*
<% } -%>

  IncludeOptional conf_custom/*.conf
</VirtualHost>

<% }) -%>
`;
