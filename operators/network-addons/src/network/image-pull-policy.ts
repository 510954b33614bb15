import { DEFAULT_IMAGE_PULL_POLICY, IMAGE_PULL_POLICIES, type ImagePullPolicy } from '../api/constants.js';

export function validateImagePullPolicy(policy: string | undefined): string[] {
  if (!policy || (IMAGE_PULL_POLICIES as readonly string[]).includes(policy)) return [];
  return [`requested imagePullPolicy '${policy}' is not valid`];
}

/** Empty takes the previously applied policy, else IfNotPresent. */
export function fillImagePullPolicyDefault(
  policy: string | undefined,
  previous: string | undefined,
): ImagePullPolicy {
  return (policy || previous || DEFAULT_IMAGE_PULL_POLICY) as ImagePullPolicy;
}

/** The policy is fixed once components were deployed with one (upstream rule). */
export function changeSafeImagePullPolicy(previous: string | undefined, next: string | undefined): string[] {
  if (previous && previous !== next) {
    return ['cannot modify ImagePullPolicy configuration once components were deployed'];
  }
  return [];
}
