// A tile colours a change only when it is larger than the noise of its samples: a two-proportion
// test for a rate (its counts in both periods), a Poisson test for a count.

import { describe, expect, it } from 'vitest';
import { tiles } from '../../src/reports/html/kpis.js';
import { countChangeIsSignificant, rateChangeIsSignificant } from '../../src/reports/html/significance.js';

/** A summary row: `ended` conversations, of which `completed`; transfers and hang-ups split the rest. */
function summary(conversations: number, completed: number, toolFailures = 0, toolCalls = 0): Record<string, number> {
  const ended = conversations;
  const transferred = Math.floor((ended - completed) / 2);
  const hungUp = ended - completed - transferred;
  return {
    conversations,
    ended,
    completed,
    transferred,
    hung_up: hungUp,
    completion_rate: completed / ended,
    transfer_rate: transferred / ended,
    hang_up_rate: hungUp / ended,
    median_duration_sec: 70,
    tool_calls: toolCalls,
    tool_failures: toolFailures,
    tool_failure_rate: toolCalls === 0 ? 0 : toolFailures / toolCalls,
  };
}

describe('rateChangeIsSignificant (two-proportion z-test, 5%)', () => {
  it('13.56% → 13.62% over thousands of conversations is noise', () => {
    expect(rateChangeIsSignificant(681, 5000, 678, 5000)).toBe(false);
  });
  it('50% → 40% over 2,000 each is not', () => {
    expect(rateChangeIsSignificant(800, 2000, 1000, 2000)).toBe(true);
  });
  it('the same 10 points over 20 conversations each is noise', () => {
    expect(rateChangeIsSignificant(8, 20, 10, 20)).toBe(false);
  });
  it('no denominator, or nothing varying, is never significant', () => {
    expect(rateChangeIsSignificant(0, 0, 3, 10)).toBe(false);
    expect(rateChangeIsSignificant(10, 10, 20, 20)).toBe(false);
  });
  it('the bound sits at |z| = 1.96', () => {
    // p 0.5 pooled, n 1000 each: se = √(0.25·0.002) ≈ 0.02236; 1.96·se ≈ 4.38 points
    expect(rateChangeIsSignificant(522, 1000, 478, 1000)).toBe(true); // 4.4 points
    expect(rateChangeIsSignificant(521, 1000, 479, 1000)).toBe(false); // 4.2 points
  });
});

describe('countChangeIsSignificant (Poisson, periods of one length)', () => {
  it('1,820 against 1,800 conversations is noise; 2,000 against 1,800 is not', () => {
    expect(countChangeIsSignificant(1820, 1800)).toBe(false);
    expect(countChangeIsSignificant(2000, 1800)).toBe(true);
  });
  it('8 against 4 is noise; nothing in both is no change', () => {
    expect(countChangeIsSignificant(8, 4)).toBe(false);
    expect(countChangeIsSignificant(0, 0)).toBe(false);
  });
});

describe('tiles()', () => {
  const byColumn = (now: Record<string, number>, before: Record<string, number>) =>
    Object.fromEntries(tiles(now, before).map((t) => [t.column, t]));

  it('a tiny change in a big sample keeps its arrow but no colour, and says it is within noise', () => {
    const t = byColumn(summary(5000, 681), summary(5000, 678));
    expect(t.completion_rate!.direction).toBe('up');
    expect(t.completion_rate!.change).toBe('+0.1 pp vs the period before (13.6%)');
    expect(t.completion_rate!.significant).toBe(false);
    expect(t.completion_rate!.judgement).toBe('neutral');
  });

  it('a big change colours: containment down is worse, tool failures down better', () => {
    const t = byColumn(summary(2000, 800, 100, 2000), summary(2000, 1000, 200, 2000));
    expect(t.completion_rate!.significant).toBe(true);
    expect(t.completion_rate!.judgement).toBe('worse');
    expect(t.tool_failure_rate!.judgement).toBe('better');
    expect(t.conversations!.significant).toBeNull(); // 2,000 both times: no change, not tested
    expect(t.conversations!.judgement).toBe('neutral');
  });

  it('a count tile is tested but never judged (a rise is neither good nor bad); a duration is not tested', () => {
    const t = byColumn(summary(2400, 1000), summary(2000, 1000));
    expect(t.conversations!.significant).toBe(true);
    expect(t.conversations!.judgement).toBe('neutral');
    expect(t.median_duration_sec!.significant).toBeNull();
  });
});
