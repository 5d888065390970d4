// The simulated Agent Management API: startSimulator puts the parts together and serves them
// with a plain node:http server on 127.0.0.1. The parts: dataset/ (the data), http/routes.ts and
// its handlers (what each path answers), http/request-pipeline.ts (auth, rate limit, faults,
// latency), limits/key-budget.ts (the key's limit), limits/background.ts (arrivals, the other client,
// auto-finish), http/hostile.ts (broken answers on purpose), real-data/ (conversations as real
// data arrives), options.ts (what can be set).

import http from 'node:http';
import type { Socket } from 'node:net';
import type { AgentDetail, ConversationSummary } from '../api/types.js';
import { applyAgentEdit, type AgentEdit } from './dataset/agent-edits.js';
import { BackgroundClients, addConversations } from './limits/background.js';
import { ConversationRoutes } from './http/conversation-routes.js';
import { Dataset, generateDataset } from './dataset/dataset.js';
import { FaultInjector } from './limits/faults.js';
import { HostileAnswers, type HostileKind } from './http/hostile.js';
import { KeyBudget } from './limits/key-budget.js';
import { clockShifts, initialOptions, type FaultOptions, type LatencyOptions, type RuntimeOptions, type SimulatorOptions } from './options.js';
import { defaultBurst } from './limits/rate-limits.js';
import { RealData, type RealDataControl } from './real-data/real-data.js';
import { RequestRecorder, type RequestLogEntry } from './http/request-log.js';
import { RequestPipeline } from './http/request-pipeline.js';
import { RECORDING_PATH, RecordingHost, type RecordingTruth } from './http/recordings.js';
import { createRouter } from './http/routes.js';
import { SpaceRoutes } from './http/space-routes.js';
import { isFractionFormat } from './http/time-format.js';

export interface Simulator {
  /** http://127.0.0.1:PORT/api/v1 */
  readonly baseUrl: string;
  readonly port: number;
  readonly apiKey: string;
  /** the space slug */
  readonly space: string;
  readonly dataset: Dataset;
  readonly requestLog: RequestLogEntry[];
  readonly options: Readonly<RuntimeOptions>;
  /** the simulated clock (options.now + elapsed real time) */
  clock(): Date;
  setOptions(partial: Partial<Omit<RuntimeOptions, 'latency' | 'faults'>> & { latency?: Partial<LatencyOptions>; faults?: Partial<FaultOptions> }): void;
  /** ids of the conversations counted in list totals but never listed (hiddenFromLists), newest first */
  hiddenConversationIds(): string[];
  /** adds n conversations starting at the simulated now (open by default; with arrivalLagMs, started
   *  that long ago and finished by now), newest first in lists */
  addConversations(n: number, opts?: { open?: boolean; startedAt?: Date }): ConversationSummary[];
  /** finishes every open conversation at the simulated now; returns how many */
  finishOpenConversations(): number;
  /** edits agent `id` as Update agent (and publishing) would: new updated_at, the given fields changed */
  editAgent(id: string, edit: AgentEdit): AgentDetail;
  /** from now on, the detail of conversation `id` is answered in this broken way (null: heal it) */
  breakConversation(id: string, kind: HostileKind | null): void;
  /** real-data mutations of finished conversations: set, vanish, truth, mutatedIds */
  readonly realData: RealDataControl;
  /** the conversations with a recording_url and the bytes the recording host holds for each */
  recordingTruth(): Map<string, RecordingTruth>;
  /** Authorization headers received by the redirect target (must stay empty) */
  readonly leakedAuthorization: string[];
  close(): Promise<void>;
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const seed = (opts.seed ?? 7) >>> 0;
  const startReal = Date.now();
  const shifts = clockShifts(opts);
  const dataset =
    opts.dataset ??
    generateDataset({
      seed,
      conversations: opts.conversations ?? 2000,
      // a skewed server's history was written on its own clock
      now: new Date((opts.now?.getTime() ?? startReal) + shifts.writtenMs),
      days: opts.days,
      confidential: opts.confidential,
      exoticValues: opts.exoticValues,
      incidents: opts.incidents,
      spaceSlug: opts.spaceSlug,
      // Fractions only show something when the instants have them.
      subSecond: opts.timeFormat !== undefined && isFractionFormat(opts.timeFormat),
    });
  const clockOffset = dataset.now.getTime() - startReal;
  const clock = (): Date => new Date(Date.now() + clockOffset);
  const slug = dataset.space.slug;

  const o = initialOptions(opts, seed, dataset);
  let burstFollowsLimit = opts.burst === undefined;
  const budget = new KeyBudget(o);
  const faults = new FaultInjector(seed);
  const requestLog: RequestLogEntry[] = [];
  const recorder = new RequestRecorder(o, requestLog);
  const realData = new RealData(dataset, o, opts.realData);
  const conversations = new ConversationRoutes(dataset, o, realData);
  conversations.hide(o.hiddenFromLists);
  const router = createRouter(slug, new SpaceRoutes(dataset, o, opts.realData?.configText === true), conversations);
  const hostile = await HostileAnswers.start();
  const pipeline = new RequestPipeline({ options: o, budget, recorder, router, hostile, faults });
  // The recording host shares the server but not the pipeline: no key, no rate limit.
  const recordings = await RecordingHost.start(dataset, o, recorder, opts.recordings, shifts.dateHeaderMs);
  const background = new BackgroundClients({ options: o, dataset, clock, budget, recorder, space: slug });

  const sockets = new Set<Socket>();
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    // Node writes the true time unless told otherwise; a skewed server's Date header follows its clock.
    if (shifts.dateHeaderMs !== 0) res.setHeader('Date', new Date(Date.now() + shifts.dateHeaderMs).toUTCString());
    if (req.url?.startsWith(RECORDING_PATH)) recordings.handle(req, res, new URL(req.url, 'http://127.0.0.1'));
    else pipeline.handle(req, res);
  });
  server.keepAliveTimeout = 5_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  o.recordingOrigin = `http://127.0.0.1:${port}`;
  o.recordingLinkOf = (id) => recordings.link(id);
  background.restart();

  let closing: Promise<void> | null = null;
  const sim: Simulator = {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    port,
    get apiKey() {
      return o.apiKey;
    },
    space: slug,
    dataset,
    requestLog,
    options: o,
    clock,
    setOptions(partial) {
      const { latency, faults: faultChanges, ...rest } = partial;
      const before = { a: o.arrivalsPerMinute, r: o.otherClientRpm, f: o.autoFinish, algorithm: o.rateAlgorithm };
      Object.assign(o, rest);
      if (latency) o.latency = { ...o.latency, ...latency };
      if (faultChanges) o.faults = { ...o.faults, ...faultChanges };
      if (rest.burst !== undefined) burstFollowsLimit = false;
      else if (burstFollowsLimit) o.burst = defaultBurst(o.rateLimit);
      budget.reconfigure(rest.rateAlgorithm !== undefined && rest.rateAlgorithm !== before.algorithm);
      if (rest.revokeKeyAfter !== undefined) budget.restartRevokeCount();
      if (rest.hiddenFromLists !== undefined) conversations.hide(o.hiddenFromLists);
      if (before.a !== o.arrivalsPerMinute || before.r !== o.otherClientRpm || before.f !== o.autoFinish) background.restart();
    },
    hiddenConversationIds: () => conversations.hiddenIds(),
    addConversations: (n, more) => addConversations(dataset, clock(), o, n, more),
    finishOpenConversations: () => dataset.finishOpenConversations(clock()),
    editAgent(id, edit) {
      const agent = dataset.agents.find((a) => a.id === id);
      if (!agent) throw new Error(`editAgent: no agent ${id}`);
      applyAgentEdit(agent, edit, clock());
      return agent;
    },
    breakConversation(id, kind) {
      hostile.breakConversation(id, kind);
    },
    realData,
    recordingTruth: () => recordings.truth(o.confidential),
    leakedAuthorization: hostile.leakedAuthorization,
    close() {
      closing ??= new Promise<void>((resolve) => {
        background.stop();
        pipeline.cancelPending();
        hostile.close();
        recordings.close();
        // 'close' can fire before libuv has run the handles' close callbacks (those run at the
        // end of the loop turn, after setImmediate): wait for the next turn.
        server.close(() => setImmediate(() => setImmediate(resolve)));
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closing;
    },
  };
  return sim;
}
