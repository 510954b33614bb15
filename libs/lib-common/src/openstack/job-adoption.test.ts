import { describe, expect, it } from 'vitest';
import { stableHash } from '../objects/hash.js';
import { goOperatorHash } from '../testing/go-hash.js';
import { isForeignJobHash, markAdoptableJobRuns } from './job-adoption.js';

const JOBS = [
  { hashKey: 'dbsync', condition: 'DBSyncReady' },
  { hashKey: 'bootstrap', condition: 'BootstrapReady' },
];
const cr = { metadata: { name: 'k', generation: 3, uid: 'u' } };
const goStatus = () => ({
  observedGeneration: 3,
  conditions: [
    { type: 'DBSyncReady', status: 'True' },
    { type: 'BootstrapReady', status: 'True' },
  ],
  hash: { dbsync: goOperatorHash('a'), bootstrap: goOperatorHash('b'), input: goOperatorHash('c') },
});

describe('telling the Go operators’ Job hashes from ours', () => {
  it('every Go-format hash is foreign, none of ours is', () => {
    for (let i = 0; i < 200; i++) {
      expect(isForeignJobHash(goOperatorHash(`x${i}`))).toBe(true);
      expect(isForeignJobHash(stableHash({ i }))).toBe(false);
    }
    expect(isForeignJobHash(undefined)).toBe(false);
  });
});

describe('markAdoptableJobRuns', () => {
  it('marks each Job the Go status proves done at the current generation, and nothing else', () => {
    const previous = goStatus();
    const hashes = { ...previous.hash };
    markAdoptableJobRuns(cr, previous, hashes, JOBS);
    expect(hashes).toEqual({
      dbsync: 'previous-operator-run@generation-3',
      bootstrap: 'previous-operator-run@generation-3',
      input: previous.hash.input,
    });
  });

  it('leaves the foreign hash (the Job runs) when the generation was not observed or the condition is not True', () => {
    const stale = { ...goStatus(), observedGeneration: 2 };
    const hashes = { ...stale.hash };
    markAdoptableJobRuns(cr, stale, hashes, JOBS);
    expect(hashes).toEqual(stale.hash);

    const failed = goStatus();
    failed.conditions[1] = { type: 'BootstrapReady', status: 'False' };
    const partly = { ...failed.hash };
    markAdoptableJobRuns(cr, failed, partly, JOBS);
    expect(partly['bootstrap']).toBe(failed.hash.bootstrap);
    expect(partly['dbsync']).toBe('previous-operator-run@generation-3');
  });

  it('never touches a hash of ours (a stackops release upgraded in place)', () => {
    const ours = { ...goStatus(), hash: { dbsync: stableHash('db'), bootstrap: stableHash('bs') } };
    const hashes = { ...ours.hash };
    markAdoptableJobRuns(cr, ours, hashes, JOBS);
    expect(hashes).toEqual(ours.hash);
  });
});
