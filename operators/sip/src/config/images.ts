/** Images of the services when their spec leaves `image` empty. */
export interface ServiceImages {
  loadBalancer: string;
  jumpHost: string;
  auth: string;
}

/** Each service's default image and the RELATED_IMAGE_* variable that replaces it. */
export const DEFAULT_IMAGES = {
  loadBalancer: { env: 'RELATED_IMAGE_HAPROXY', image: 'haproxy:2.3.2' },
  jumpHost: { env: 'RELATED_IMAGE_JUMP_HOST', image: 'quay.io/airshipit/jump-host:latest' },
  auth: { env: 'RELATED_IMAGE_DEX', image: 'ghcr.io/dexidp/dex:v2.41.1' },
} as const satisfies Record<keyof ServiceImages, { env: string; image: string }>;

/** Each service image from its RELATED_IMAGE_* variable, else upstream's image (an empty variable counts as unset). */
export function imagesFromEnv(env: Readonly<Record<string, string | undefined>>): ServiceImages {
  const pick = (d: { env: string; image: string }) => env[d.env] || d.image;
  return {
    loadBalancer: pick(DEFAULT_IMAGES.loadBalancer),
    jumpHost: pick(DEFAULT_IMAGES.jumpHost),
    auth: pick(DEFAULT_IMAGES.auth),
  };
}
