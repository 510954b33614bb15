import { describe, expect, it } from 'vitest';
import { parseControl } from './debian.js';

describe('parseControl', () => {
  it('reads paragraphs and continuation lines', () => {
    const [first, second] = parseControl(
      'Package: libc6\nVersion: 2.36-9\nDescription: GNU C Library\n Contains the standard libraries\n\nPackage: base-files\nArchitecture: amd64\n',
    );
    expect(first?.get('Package')).toBe('libc6');
    expect(first?.get('Description')).toBe('GNU C Library\n Contains the standard libraries');
    expect(second?.get('Architecture')).toBe('amd64');
  });
});
