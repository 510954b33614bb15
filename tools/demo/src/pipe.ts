import type { Socket } from 'node:net';

/** Pipes two sockets both ways; either side closing or failing closes the other. Node-only imports. */
export function pipeBoth(a: Socket, b: Socket): void {
  const close = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', close).on('close', close);
  b.on('error', close).on('close', close);
  a.pipe(b);
  b.pipe(a);
}
