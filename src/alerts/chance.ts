// How likely a value this far from a reference is by chance, from the counts behind it: a rate
// over `volume` trials is a binomial count, a count without a volume a Poisson one. A rule with
// `confidence` fires only when this probability is below 1 - confidence. Pure functions.

/**
 * The probability of a value at least this far from `reference` in the direction of `value`:
 * with `volume`, the binomial tail of round(value × volume) successes at rate `reference`;
 * without, the Poisson tail of round(value) at mean `reference`. 1 when the value is on the
 * reference's side (nothing to explain).
 */
export function chanceOf(value: number, reference: number, volume: number | null): number {
  const up = value > reference;
  if (value === reference) return 1;
  if (volume !== null) {
    const n = Math.max(0, Math.round(volume));
    if (n === 0) return 1;
    const k = Math.round(Math.min(1, Math.max(0, value)) * n);
    const p = Math.min(1, Math.max(0, reference));
    if (p === 0) return k > 0 ? 0 : 1;
    if (p === 1) return k < n ? 0 : 1;
    const logPmf = (i: number) => logChoose(n, i) + i * Math.log(p) + (n - i) * Math.log1p(-p);
    return up ? tail(logPmf, k, n, 1, n * p) : tail(logPmf, k, 0, -1, n * p);
  }
  const k = Math.max(0, Math.round(value));
  const lambda = Math.max(0, reference);
  if (lambda === 0) return k > 0 ? 0 : 1;
  const logPmf = (i: number) => i * Math.log(lambda) - lambda - logGamma(i + 1);
  return up ? tail(logPmf, k, Infinity, 1, lambda) : tail(logPmf, k, 0, -1, lambda);
}

/** Sums pmf(k), pmf(k + step), … to `last`; terms shrink past the mean, so it stops when they are negligible. */
function tail(logPmf: (i: number) => number, k: number, last: number, step: 1 | -1, mean: number): number {
  if ((step === 1 && k <= mean) || (step === -1 && k >= mean)) return 1;
  let sum = 0;
  for (let i = k; step === 1 ? i <= last : i >= last; i += step) {
    const term = Math.exp(logPmf(i));
    sum += term;
    if (term < sum * 1e-12) break;
  }
  return Math.min(1, sum);
}

function logChoose(n: number, k: number): number {
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

// Lanczos approximation (g = 7, 9 terms): relative error near 1e-15 for x > 0.
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
  9.9843695780195716e-6, 1.5056327351493116e-7,
];

function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}
