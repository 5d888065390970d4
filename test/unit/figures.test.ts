import { describe, expect, it } from 'vitest';
import { conversationFigures, countWords, turnFigures } from '../../src/store/figures.js';
import type { TurnRow } from '../../src/store/normalise.js';

const turn = (speaker: string | null, text: string | null, at: string | null = '2026-01-01T00:00:00Z'): TurnRow => ({ speaker, text, at, node_key: 'n' });

describe('turn figures', () => {
  it('counts runs of characters between blanks, whatever else they hold', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  two\twords \r\n')).toBe(2);
    expect(countWords('日本語のテキスト 👍🏽 ok')).toBe(3);
    expect(countWords('a\u00a0b\u2028c')).toBe(1);
  });

  it('times an agent turn from the caller turn right before it, and from no other', () => {
    const f = turnFigures([turn('agent', 'hi', 'a0'), turn('caller', 'x', 'c1'), turn('caller', 'y', 'c2'), turn('agent', 'z', 'a3'), turn('agent', 'w', 'a4'), turn('system', 's'), turn('agent', 'v')]);
    expect(f.map((x) => x.answersCallerAt)).toEqual([null, null, null, 'c2', null, null, null]);
  });

  it('marks a repeated agent sentence with the first that said it, and counts agent runs', () => {
    const f = turnFigures([turn('agent', 'same'), turn('agent', 'other'), turn('caller', 'same'), turn('agent', 'same'), turn('agent', null), turn('agent', null), turn(null, 'same'), turn('agent', 'same')]);
    expect(f.map((x) => x.repeatOfSeq)).toEqual([null, null, null, 0, null, null, null, 0]);
    expect(f.map((x) => x.agentRun)).toEqual([1, 2, null, 1, 2, 3, null, 1]);
    expect(f.map((x) => x.words)).toEqual([1, 1, 1, 1, null, null, 1, 1]);
    expect(f.map((x) => x.turnsAfter)).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it('sums a conversation: words and turns by speaker, its longest agent run, last node, failed calls (no status included)', () => {
    const turns = [turn('agent', 'hello there'), turn('agent', 'one'), turn('caller', 'three short words'), turn('system', 'x y'), turn('agent', null)];
    const c = conversationFigures(turns, turnFigures(turns), [{ at: 'a', node_key: 'start' }, { at: 'b', node_key: 'end' }], [{ status: 'ok' }, { status: null }, { status: 'timeout' }]);
    expect(c).toEqual({
      turns: 5, agent_turns: 3, caller_turns: 1, agent_words: 3, caller_words: 3, longest_agent_run: 2,
      node_visits: 2, last_node: 'end', last_node_at: 'b', tool_calls: 3, failed_tool_calls: 2,
    });
    expect(conversationFigures([], [], [], [])).toBeNull();
  });
});
