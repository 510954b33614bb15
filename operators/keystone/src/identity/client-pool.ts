import { createHash } from 'node:crypto';
import { IdentityClient, type IdentityClientOptions } from './client.js';

const DEFAULT_MAX_CLIENTS = 64;

/**
 * Keeps one IdentityClient per distinct set of options (URL, user, password, scope…), so reconciles
 * reuse a token instead of authenticating every time (each password check costs Keystone a hash).
 * A changed password or URL simply yields a new client; the least recently used ones are dropped.
 */
export class IdentityClientPool {
  private readonly clients = new Map<string, IdentityClient>();

  /**
   * `authUrlOverride` replaces the Keystone URL this operator itself calls (never the URLs it
   * publishes): for an operator running outside the cluster network, which cannot reach (or even
   * resolve) `keystone-internal.<ns>.svc`.
   */
  constructor(
    private readonly maxClients = DEFAULT_MAX_CLIENTS,
    private readonly authUrlOverride?: string,
  ) {}

  get(requested: IdentityClientOptions): IdentityClient {
    const opts = this.authUrlOverride ? { ...requested, authUrl: this.authUrlOverride } : requested;
    // A digest, not the options: the map key must not hold the password in clear.
    const key = createHash('sha256').update(JSON.stringify(opts)).digest('hex');
    const found = this.clients.get(key);
    if (found) {
      this.clients.delete(key);
      this.clients.set(key, found);
      return found;
    }
    const client = new IdentityClient(opts);
    this.clients.set(key, client);
    while (this.clients.size > this.maxClients) {
      const oldest = this.clients.keys().next().value;
      if (oldest === undefined) break;
      this.clients.delete(oldest);
    }
    return client;
  }

  get size(): number {
    return this.clients.size;
  }
}
