// Public surface of the built-in simulator of the Agent Management API.
export { startSimulator, defaultApiKey, HOSTILE_KINDS } from './server.js';
export type {
  Simulator,
  HostileKind,
  SimulatorOptions,
  RuntimeOptions,
  LatencyOptions,
  FaultOptions,
  RequestLogEntry,
  RequestKind,
} from './server.js';
export { generateDataset, Dataset, formatTs } from './generate.js';
export type { GenerateOptions, ConversationRecord } from './generate.js';
export { Rng, hashSeed, hashString, UUID_RE } from './random.js';
