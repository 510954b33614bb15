import { describe, expect, it } from 'vitest';
import { passwordProblem } from './passwords.js';

describe('passwordProblem', () => {
  it.each([
    ['12345678', undefined],
    ['', 'empty password not allowed'],
    ['c^sometext02%text%text02$someText&', 'password does not meet the requirements'],
    ['a$' + '{HOME}b', 'password does not meet the requirements'],
    ['a$(id)b', 'password does not meet the requirements'],
    ['a`id`b', 'password does not meet the requirements'],
    ['price$5', undefined],
  ])('%j → %j', (pw, problem) => {
    expect(passwordProblem(pw)).toBe(problem);
  });
});
