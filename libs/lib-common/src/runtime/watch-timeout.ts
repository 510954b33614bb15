/** The shortest server-side watch timeout asked for: the API server's own `--min-request-timeout` default. */
const MIN_WATCH_TIMEOUT_S = 1800;

/**
 * The server-side timeout of one watch: 30–60 min at random, the range the API server itself picks
 * for a watch that names none. Long, so an idle operator renews each watch about twice an hour
 * instead of every 5 min (each renewal is a request and a bookmark for both sides); at random, so
 * the watches of a process started at once do not all renew at once. A connection that died
 * silently is found by the client's keep-alive PINGs (client/client-http2.ts), not by a watch's end.
 */
export function watchTimeoutSeconds(random: () => number = Math.random): number {
  return MIN_WATCH_TIMEOUT_S + Math.floor(random() * MIN_WATCH_TIMEOUT_S);
}
