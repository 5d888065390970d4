// Public surface of the built-in simulator of the Agent Management API.
export { startSimulator } from './server.js';
export type { Simulator } from './server.js';
export type { AgentEdit } from './agent-edits.js';
export { defaultApiKey, RETRY_AFTER_MODES } from './options.js';
export type { SimulatorOptions, RuntimeOptions, LatencyOptions, FaultOptions, RetryAfterMode } from './options.js';
export type { RequestLogEntry, RequestKind } from './request-log.js';
export { HOSTILE_KINDS } from './hostile.js';
export type { HostileKind } from './hostile.js';
export { RATE_ALGORITHMS, createRateLimiter, defaultBurst } from './rate-limits.js';
export type { RateAlgorithm, RateLimiter, RateLimitSettings } from './rate-limits.js';
export { TIME_FORMATS, renderInstant } from './time-format.js';
export type { TimeFormat } from './time-format.js';
export { generateDataset, Dataset } from './dataset.js';
export { formatTs } from './dataset-format.js';
export type { GenerateOptions, ConversationRecord } from './dataset.js';
export { Rng, hashSeed, hashString, UUID_RE } from './random.js';
