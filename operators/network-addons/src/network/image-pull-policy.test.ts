import { describe, expect, it } from 'vitest';
import {
  changeSafeImagePullPolicy,
  fillImagePullPolicyDefault,
  validateImagePullPolicy,
} from './image-pull-policy.js';

describe('image pull policy', () => {
  it('validates', () => {
    expect(validateImagePullPolicy('BAD')).toEqual(["requested imagePullPolicy 'BAD' is not valid"]);
    expect(validateImagePullPolicy('Always')).toEqual([]);
    expect(validateImagePullPolicy(undefined)).toEqual([]);
  });

  it('defaults from the previous policy, else IfNotPresent', () => {
    expect(fillImagePullPolicyDefault(undefined, 'Always')).toBe('Always');
    expect(fillImagePullPolicyDefault('', undefined)).toBe('IfNotPresent');
    expect(fillImagePullPolicyDefault('Never', 'Always')).toBe('Never');
  });

  it('is fixed once deployed', () => {
    expect(changeSafeImagePullPolicy('IfNotPresent', 'Always')).toHaveLength(1);
    expect(changeSafeImagePullPolicy('Always', 'Always')).toEqual([]);
    expect(changeSafeImagePullPolicy(undefined, 'Always')).toEqual([]);
  });
});
