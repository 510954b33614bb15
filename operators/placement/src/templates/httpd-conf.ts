/**
 * httpd.conf (Eta): one name-based virtual host per endpoint type on port 8778, each with its own
 * WSGI daemon process running placement-api, with mod_ssl on for an endpoint that has a
 * certificate; logs go to the container's stdout/stderr. Each WSGI process loads placement-api
 * when it starts, not on its first request (process-group and application-group on
 * WSGIScriptAlias): the readiness probe reaches one public process only.
 */
export const httpdConfTemplate = `ServerTokens Prod
ServerSignature Off
TraceEnable Off
PidFile run/httpd.pid
ServerRoot "/etc/httpd"
ServerName "localhost.localdomain"

User apache
Group apache

Listen <%= it.port %>

TypesConfig /etc/mime.types

Include conf.modules.d/*.conf

LogFormat "%h %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-Agent}i\\"" combined
LogFormat "%{X-Forwarded-For}i %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-Agent}i\\"" proxy

SetEnvIf X-Forwarded-For "^.*\\..*\\..*\\..*" forwarded
ErrorLog /dev/stderr
TransferLog /dev/stdout
CustomLog /dev/stdout combined env=!forwarded
CustomLog /dev/stdout proxy env=forwarded
<% for (const vhost of it.vhosts) { -%>

# <%= vhost.endpoint %> endpoint
<VirtualHost *:<%= it.port %>>
  ServerName <%= vhost.serverName %>
  TimeOut <%= it.timeout %>
<% if (vhost.tls) { -%>
  SetEnvIf X-Forwarded-Proto https HTTPS=1
  SSLEngine on
  SSLCertificateFile      "<%= vhost.tls.certificateFile %>"
  SSLCertificateKeyFile   "<%= vhost.tls.keyFile %>"
<% } -%>
  ErrorLog /dev/stdout
  SetEnvIf X-Forwarded-For "^.*\\..*\\..*\\..*" forwarded
  CustomLog /dev/stdout combined env=!forwarded
  CustomLog /dev/stdout proxy env=forwarded

  <Directory "/var/www/cgi-bin/placement">
    Options -Indexes +FollowSymLinks +MultiViews
    AllowOverride None
    Require all granted
  </Directory>

  WSGIApplicationGroup %{GLOBAL}
  WSGIPassAuthorization On
  WSGIDaemonProcess <%= vhost.endpoint %> display-name=<%= vhost.endpoint %> group=placement processes=<%= it.processes %> threads=1 user=placement
  WSGIProcessGroup <%= vhost.endpoint %>
  WSGIScriptAlias / /usr/bin/placement-api process-group=<%= vhost.endpoint %> application-group=%{GLOBAL}
</VirtualHost>
<% } -%>`;

interface HttpdVhost {
  endpoint: string;
  serverName: string;
  /** Set when the endpoint serves https: the files kolla copied the certificate and key to. */
  tls?: { certificateFile: string; keyFile: string } | undefined;
}

export interface HttpdConfParams {
  port: number;
  timeout: number;
  processes: number;
  vhosts: HttpdVhost[];
}
