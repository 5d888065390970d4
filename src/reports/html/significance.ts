// Whether a tile's change is larger than the noise of its sample, so that only such a change is
// coloured better or worse. Two-sided tests at the 5% level (|z| ≥ 1.96), normal approximations.

/** The z a change must reach to count: a two-sided test at the 5% level. */
export const Z_CRITICAL = 1.96;

/**
 * Two-proportion z-test (pooled): `now` of `nowOf` against `before` of `beforeOf`, e.g. completed
 * of ended in each period. False when either period has no denominator or nothing varies.
 */
export function rateChangeIsSignificant(now: number, nowOf: number, before: number, beforeOf: number): boolean {
  if (nowOf <= 0 || beforeOf <= 0) return false;
  const pooled = (now + before) / (nowOf + beforeOf);
  const variance = pooled * (1 - pooled) * (1 / nowOf + 1 / beforeOf);
  if (variance <= 0) return false;
  return Math.abs(now / nowOf - before / beforeOf) / Math.sqrt(variance) >= Z_CRITICAL;
}

/**
 * Poisson test of two counts over periods of the same length: under "same rate" their difference
 * has variance now + before, so z = (now − before) / √(now + before).
 */
export function countChangeIsSignificant(now: number, before: number): boolean {
  if (now < 0 || before < 0 || now + before === 0) return false;
  return Math.abs(now - before) / Math.sqrt(now + before) >= Z_CRITICAL;
}
