// Tests and the benchmark count requests per rolling window the same way.
export { maxInRollingWindow } from '../../src/bench/measure.js';
