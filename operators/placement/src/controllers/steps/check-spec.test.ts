import { describe, expect, it } from 'vitest';
import { placementSpecProblems } from './check-spec.js';

describe('placementSpecProblems', () => {
  it('lists every error of the spec at once, each naming its field', () => {
    expect(
      placementSpecProblems({
        passwordSelectors: { service: '..', database: 'ok' },
        networkAttachments: ['internalapi', 'Bad_Name'],
      }),
    ).toEqual([
      'spec.passwordSelectors.service: Secret key ".." may not be . or start with ..',
      'spec.networkAttachments[1]: "Bad_Name" is no NetworkAttachmentDefinition name (a DNS-1123 subdomain)',
    ]);
  });
  it('has none for a valid spec', () => {
    expect(
      placementSpecProblems({
        passwordSelectors: { service: 'PlacementPassword' },
        networkAttachments: ['internalapi', 'storage.mgmt'],
      }),
    ).toEqual([]);
  });
});
