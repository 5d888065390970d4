// The tally that ends check, sync and status over many spaces: one pure function for the three.
import { describe, expect, it } from 'vitest';
import { countStates, keyProblemState, tallySpaces, type SpaceState } from '../../src/cli/tally.js';

const many = (n: number, state: SpaceState): SpaceState[] => Array.from({ length: n }, () => state);

describe('tallySpaces', () => {
  it('counts each state in one fixed order, whatever order the spaces come in, leaving out states no space is in', () => {
    const states = [...many(1, 'unsetVariable'), ...many(100, 'ready'), ...many(2, 'refusedKey'), ...many(95, 'ready')];
    expect(tallySpaces(states)).toBe('198 spaces: 195 ready, 2 refused keys, 1 unset variable');
    expect(countStates(states)).toEqual({ spaces: 198, ready: 195, refusedKey: 2, unsetVariable: 1 });
  });

  it('says one and many apart, and an empty list is zero spaces', () => {
    expect(tallySpaces(['synced', 'unreadableKeyFile'])).toBe('2 spaces: 1 synced, 1 unreadable key file');
    expect(tallySpaces([...many(2, 'notAKey'), ...many(3, 'unreadableKeyFile'), 'neverSynced'])).toBe(
      '6 spaces: 1 never synced, 3 unreadable key files, 2 malformed keys',
    );
    expect(tallySpaces(['ready'])).toBe('1 space: 1 ready');
    expect(tallySpaces([])).toBe('0 spaces');
  });

  it('names each way a key cannot be read', () => {
    expect(['unset-variable', 'unreadable-file', 'not-a-key'].map((k) => keyProblemState(k as never))).toEqual(['unsetVariable', 'unreadableKeyFile', 'notAKey']);
  });
});
