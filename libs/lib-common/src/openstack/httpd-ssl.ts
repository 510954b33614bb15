/**
 * `/etc/httpd/conf.d/ssl.conf` for the services' httpd: the TLS settings of the vhosts that turn
 * TLS on, and nothing else. It replaces the ssl.conf mod_ssl ships in the images, whose default
 * 443 vhost names a localhost certificate that nothing creates in a container, so httpd would
 * refuse to start (the services' httpd.conf includes conf.d/*.conf).
 */
export const httpdSslConf = `<IfModule ssl_module>
  SSLProtocol all -SSLv2 -SSLv3 -TLSv1 -TLSv1.1
  SSLCipherSuite ECDHE+AESGCM:DHE+AESGCM:!aNULL:!MD5:!RC4:!3DES
  SSLHonorCipherOrder on
  SSLSessionTickets off
</IfModule>
`;
