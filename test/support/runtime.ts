import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { ManualClock, SequentialIds } from '../../src/domain/sources.js';
import { Store } from '../../src/persistence/store.js';
import { Runtime } from '../../src/actors/runtime.js';
import type { EffectHandler } from '../../src/actors/effect-handler.js';
import { EffectWorker } from '../../src/actors/effect-worker.js';
import type { ProviderEffectKind } from '../../src/domain/effects.js';
import { ProviderRegistry } from '../../src/providers/registry.js';
import type { Provider } from '../../src/providers/provider.js';
import { codexProvider } from '../../src/providers/codex/codex-provider.js';
import { checkpointHandlers } from '../../src/actors/checkpoint-effects.js';
import type { CheckpointStore } from '../../src/checkpoints/checkpoint-store.js';
import type { CapabilitySource } from '../../src/actors/policy.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { Effect } from '../../src/domain/effects.js';
import { runTerminalStatuses } from '../../src/domain/statuses.js';
import type { ProjectionRow } from '../../src/domain/projections.js';
import type { ProviderKind } from '../../src/domain/statuses.js';
import { tempDir } from './temp.js';

type RunView = ProjectionRow<'runs'>;

export interface Harness {
  runtime: Runtime;
  store: Store;
  worker: EffectWorker;
  clock: ManualClock;
  path: string;
  published: DomainEvent[];
  /** Sends a command and returns its ack, failing loudly on a refusal unless `allowError`. */
  command(cmd: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The newest pending effect of a kind on a thread. */
  effect(kind: string, threadId: string): Effect;
  /** Creates a thread and returns its id. */
  thread(extra?: Record<string, unknown>): Promise<string>;
  /** Sends a message (fails loudly on a refusal) and returns its run id. */
  send(threadId: string, text: string, extra?: Record<string, unknown>): Promise<string>;
  /** A run's projection (it must exist). */
  run(runId: string): RunView;
  /** True once the run is completed, failed, interrupted, cancelled or rolled back. */
  ended(runId: string): boolean;
  /** The ids of the newest provider turn the runtime asked for on a thread. */
  turn(threadId: string): { runId: string; attemptId: string; rootNodeId: string };
  /** Feeds a provider event and fails loudly if the runtime refused it. */
  feed(event: Record<string, unknown>): Promise<void>;
  /** Sends `text` and plays the provider starting its turn (`nativeTurnRef`): the run is running. */
  running(
    threadId: string,
    text?: string,
    nativeTurnRef?: string,
  ): Promise<{ runId: string; attemptId: string; rootNodeId: string }>;
  /** Drains the effect worker until `done()` holds, waiting for published events in between. */
  until(done: () => boolean, timeoutMs?: number): Promise<void>;
  /** Closes this runtime and opens a new one on the same file: a restart. */
  restart(): Harness;
  /** A restart into a Baton assembled differently (other providers, say). */
  restartWith(other: HarnessOptions): Harness;
}

let commandCounter = 0;

export interface HarnessOptions {
  capabilities?: CapabilitySource;
  checkpoints?: CheckpointStore;
  requestTtlMs?: number;
  /** What the Codex provider carries out in this test (nothing by default: its effects wait in the outbox). */
  handlers?: (runtime: Runtime) => Partial<Record<ProviderEffectKind, EffectHandler>>;
  /** Other providers to register beside Codex. */
  providers?: (runtime: Runtime) => Provider[];
  /** The provider of a thread created without one (Codex by default). */
  defaultProvider?: ProviderKind;
}

/**
 * A runtime on a real SQLite file with deterministic ids and a manual clock. `opened` is
 * told of every store it opens (restarts included), so its owner can close them.
 */
export function createHarness(
  options: HarnessOptions,
  path: string,
  salt: string,
  clock: ManualClock,
  opened: (store: Store) => void,
): Harness {
  const store = Store.open(path, { clock });
  opened(store);
  const providers = new ProviderRegistry();
  const runtime = new Runtime({
    store,
    clock,
    ids: new SequentialIds(salt),
    providers,
    checkpoints: options.checkpoints ?? null,
    requestTtlMs: options.requestTtlMs ?? null,
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    ...(options.defaultProvider ? { defaultProvider: options.defaultProvider } : {}),
  });
  providers.register(codexProvider(options.handlers?.(runtime) ?? {}));
  options.providers?.(runtime).forEach((p) => providers.register(p));
  // A real directory: thread.create refuses a cwd that is not one.
  const workspace = join(dirname(path), 'workspace');
  mkdirSync(workspace, { recursive: true });
  const published: DomainEvent[] = [];
  runtime.onEvents((events) => published.push(...events));
  const worker = new EffectWorker(runtime, checkpointHandlers(runtime.checkpoints));
  const h: Harness = {
    runtime,
    store,
    worker,
    clock,
    path,
    published,
    command: async (cmd) => await runtime.dispatch({ commandId: `cmd_t${++commandCounter}`, ...cmd }),
    effect: (kind, threadId) => {
      const found = store.outbox
        .list({ threadId })
        .filter((e) => e.kind === kind)
        .at(-1);
      if (!found) throw new Error(`no ${kind} effect on ${threadId}`);
      return found;
    },
    thread: async (extra = {}) => {
      const ack = (await h.command({ type: 'thread.create', cwd: workspace, title: 'T', ...extra })) as {
        ok: boolean;
        result: { threadId: string };
      };
      if (!ack.ok) throw new Error(`thread.create refused: ${JSON.stringify(ack)}`);
      return ack.result.threadId;
    },
    send: async (threadId, text, extra = {}) => {
      const ack = (await h.command({ type: 'thread.message.send', threadId, text, ...extra })) as {
        ok: boolean;
        result: { runId: string };
      };
      if (!ack.ok) throw new Error(`thread.message.send refused: ${JSON.stringify(ack)}`);
      return ack.result.runId;
    },
    run: (runId) => {
      const run = store.projections.get('runs', runId);
      if (!run) throw new Error(`no run ${runId}`);
      return run;
    },
    ended: (runId) => (runTerminalStatuses as readonly string[]).includes(h.run(runId).status),
    turn: (threadId) => {
      const e = h.effect('provider.turn.start', threadId);
      return { runId: e.runId!, ...(e.payload as { attemptId: string; rootNodeId: string }) };
    },
    feed: async (event) => {
      const outcome = await runtime.ingest(event);
      if (!outcome.ok) throw new Error(`provider event refused: ${JSON.stringify(outcome.error)}`);
    },
    running: async (threadId, text = 'hello', nativeTurnRef = 'turn-1') => {
      const runId = await h.send(threadId, text);
      const t = h.turn(threadId);
      await h.feed({
        type: 'turn.started',
        threadId,
        runId,
        attemptId: t.attemptId,
        nodeId: t.rootNodeId,
        nativeTurnRef,
      });
      return t;
    },
    until: async (done, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const seen = published.length;
        await worker.drain();
        if (done()) return;
        if (Date.now() > deadline) throw new Error('condition not reached in time');
        if (published.length !== seen) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
          const off = runtime.onEvents(() => {
            clearTimeout(timer);
            off();
            resolve();
          });
        });
      }
    },
    restart: () => h.restartWith(options),
    restartWith: (other) => {
      store.close();
      return createHarness(other, path, `${salt}r`, clock, opened);
    },
  };
  return h;
}

/** `createHarness` for a vitest file: every store it opens is closed, and its folder removed, after each test. */
export function useRuntime(options: HarnessOptions = {}): () => Harness {
  const stores: Store[] = [];
  const folders: (() => void)[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const remove of folders.splice(0)) remove();
  });
  return () => {
    const t = tempDir();
    folders.push(t.cleanup);
    return createHarness(options, join(t.dir, 'baton.sqlite'), 'a', new ManualClock(), (store) => stores.push(store));
  };
}
