// The tally that ends `check`, `sync` and `status` over many spaces, e.g. `198 spaces: 195 ready,
// 2 refused keys, 1 unset variable`: how many spaces, then how many are in each state, in one
// fixed order, states no space is in left out. Pure: each command says which state each space is in.

/** Each state a space can end a command in, with its words for one and for several, in the order a tally lists them. */
const WORDS = {
  ready: ['ready', 'ready'],
  synced: ['synced', 'synced'],
  running: ['running', 'running'],
  neverSynced: ['never synced', 'never synced'],
  withErrors: ['with errors', 'with errors'],
  wouldFail: ['would not sync', 'would not sync'],
  unreachable: ['unreachable', 'unreachable'],
  failed: ['failed', 'failed'],
  killed: ['killed', 'killed'],
  interrupted: ['interrupted', 'interrupted'],
  busy: ['left to another sync', 'left to another sync'],
  refusedSettings: ['with refused settings', 'with refused settings'],
  refusedKey: ['refused key', 'refused keys'],
  unsetVariable: ['unset variable', 'unset variables'],
  unreadableKeyFile: ['unreadable key file', 'unreadable key files'],
  notAKey: ['malformed key', 'malformed keys'],
} as const satisfies Record<string, readonly [string, string]>;

export type SpaceState = keyof typeof WORDS;

/** Why a space's key could not be read, as config/settings.ts tells it. */
export type KeyProblemKind = 'unset-variable' | 'unreadable-file' | 'not-a-key';

/** The state of a space whose key could not be read. */
export function keyProblemState(kind: KeyProblemKind): SpaceState {
  return kind === 'unset-variable' ? 'unsetVariable' : kind === 'unreadable-file' ? 'unreadableKeyFile' : 'notAKey';
}

/** How many spaces, and how many in each state they are in (for --json), in the tally's order. */
export function countStates(states: readonly SpaceState[]): { spaces: number } & Partial<Record<SpaceState, number>> {
  const counts: { spaces: number } & Partial<Record<SpaceState, number>> = { spaces: states.length };
  for (const state of Object.keys(WORDS) as SpaceState[]) {
    const n = states.filter((s) => s === state).length;
    if (n > 0) counts[state] = n;
  }
  return counts;
}

/** `198 spaces: 195 ready, 2 refused keys, 1 unset variable` (`0 spaces` when there are none). */
export function tallySpaces(states: readonly SpaceState[]): string {
  const { spaces, ...counts } = countStates(states);
  const head = `${spaces} space${spaces === 1 ? '' : 's'}`;
  const parts = (Object.entries(counts) as [SpaceState, number][]).map(([state, n]) => `${n} ${WORDS[state][n === 1 ? 0 : 1]}`);
  return parts.length === 0 ? head : `${head}: ${parts.join(', ')}`;
}
