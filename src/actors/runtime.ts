import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { Command } from '../domain/commands.js';
import { z } from 'zod';
import type { CommandAck } from '../domain/command-ack.js';
import type { ProviderCapabilities } from '../domain/capabilities.js';
import { BatonError, fromZodError, toErrorInfo } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import { ProviderEvent } from '../domain/provider-events.js';
import type { ProviderKind } from '../domain/statuses.js';
import { EntityKind } from '../domain/entities.js';
import { idOf, ThreadId } from '../domain/ids.js';
import { timeOrderedIds, systemClock, type Clock, type IdSource } from '../domain/sources.js';
import { CommitQueue } from '../persistence/commit-queue.js';
import { CommandsInFlight } from './commands-in-flight.js';
import { parseCommand } from './command-parse.js';
import type { Store } from '../persistence/store.js';
import { ProviderRegistry } from '../providers/registry.js';
import { handleCommand } from './command-handlers.js';
import { handlerEnvOf, type HandlerEnv } from './command-checks.js';
import { actsBeforeItsStep, describeTarget, namedThread, newThreadOf } from './command-target.js';
import { commitRollbackNode, commitRollbackToRun, prepareRollbackNode, prepareRollbackToRun } from './rollback.js';
import type { CheckpointStore } from '../checkpoints/checkpoint-store.js';
import type { CapabilitySource } from './policy.js';
import type { OrchestratorMcpAccess, ProviderHost, ProviderRuntime } from './provider-host.js';
import { routeProviderEvent } from './provider-routing.js';
import { providerHostOf } from './runtime-provider-host.js';
import { replayReceipt } from './receipt-replay.js';
import { recoverAfterRestart } from './restart-recovery.js';
import { checkWorkspaceCwd, type WorkspaceCheckOptions } from './workspace-cwd.js';
import { nameForkWorkspace } from './fork-workspace.js';
import { mergeBackFiles } from './merge-back-files.js';
import type { StepContext } from './step-context.js';
import type { StepOutcome } from './step-outcome.js';
import { ThreadActor } from './thread-actor.js';

export interface RuntimeOptions {
  store: Store;
  ids?: IdSource;
  clock?: Clock;
  /**
   * The providers that can run threads here: their capabilities, their effect handlers. A
   * thread on any other is refused at the command. Providers may register after the
   * runtime is built (their adapters need it). Default: none yet.
   */
  providers?: ProviderRegistry;
  /** Overrides the registry's declarations (tests of a fallback); default: the registry's. */
  capabilities?: CapabilitySource;
  defaultProvider?: ProviderKind;
  /** Idle threads beyond this many are passivated (least recently used first). */
  maxLiveThreads?: number;
  /** Where runs checkpoint their workspace; without one, checkpoints are recorded missing. */
  checkpoints?: CheckpointStore | null;
  /** Unanswered runtime requests expire after this long (a durable timer); null: never. */
  requestTtlMs?: number | null;
  /** Where failures that no caller sees are reported (default: warnings and worse, to stderr). */
  logger?: Logger;
  /** Baton's data dir: no workspace may be inside it or contain it (checkpoints would copy it). */
  dataDir?: string | null;
}

/** What a durable timer delivers when it fires: an event for the entity that scheduled it. */
const TimerDelivery = z.object({ kind: EntityKind, event: z.looseObject({ type: z.string() }) });

/**
 * The actor runtime: one ThreadActor per AppThread, created on first use (nothing is
 * hydrated at start) and passivated when idle. Commands and provider events enter here,
 * are validated with zod, and run as steps in their thread's mailbox.
 */
export class Runtime implements ProviderRuntime {
  readonly store: Store;
  readonly queue: CommitQueue;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly providers: ProviderRegistry;
  private readonly capabilities: CapabilitySource;
  private readonly defaultProvider: ProviderKind;
  private readonly maxLiveThreads: number;
  readonly checkpoints: CheckpointStore | null;
  private readonly requestTtlMs: number | null;
  readonly logger: Logger;
  /** Directories no workspace may overlap: the data dir and where checkpoints live. */
  private readonly protectedDirs: string[];
  /** Where forks' own workspaces are made (`<dataDir>/workspaces`): inside the data dir, and workspaces all the same. */
  readonly forkWorkspaces: string | null;
  /** Baton's orchestrator MCP server, set once it listens: each provider session gets a credential of its own there. */
  orchestratorMcp: OrchestratorMcpAccess | null = null;
  private readonly threads = new Map<string, ThreadActor>();
  private readonly listeners = new Set<(events: DomainEvent[]) => void>();
  private readonly effectListeners = new Set<() => void>();
  private readonly timerListeners = new Set<() => void>();
  private readonly inFlight = new CommandsInFlight();
  /** What command handlers read of the runtime: made once, not per command (see `handlerEnvOf`). */
  private readonly handlerEnv: HandlerEnv;

  constructor(options: RuntimeOptions) {
    this.store = options.store;
    this.queue = new CommitQueue(options.store);
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? timeOrderedIds(this.clock);
    this.providers = options.providers ?? new ProviderRegistry();
    this.capabilities = options.capabilities ?? ((p, agent) => this.providers.capabilities(p, agent));
    this.defaultProvider = options.defaultProvider ?? 'codex';
    this.handlerEnv = handlerEnvOf(this.capabilities, this.defaultProvider, this.providers, this.store);
    this.maxLiveThreads = options.maxLiveThreads ?? 2_000;
    this.checkpoints = options.checkpoints ?? null;
    this.requestTtlMs = options.requestTtlMs ?? null;
    this.logger = options.logger ?? pino({ level: 'warn' }, pino.destination(2));
    this.protectedDirs = [options.dataDir, this.checkpoints?.root].filter((d): d is string => !!d);
    this.forkWorkspaces = options.dataDir ? join(options.dataDir, 'workspaces') : null;
  }

  /**
   * Calls `listener` after each commit that queued outbox effects; returns the unsubscribe.
   * Only the steps' commits add effects, so the effect worker need not look after any other.
   */
  onEffectsQueued(listener: () => void): () => void {
    this.effectListeners.add(listener);
    return () => this.effectListeners.delete(listener);
  }

  /** Calls `listener` after each commit that scheduled or cancelled durable timers; returns the unsubscribe. */
  onTimersChanged(listener: () => void): () => void {
    this.timerListeners.add(listener);
    return () => this.timerListeners.delete(listener);
  }

  /** Subscribes to committed events, in commit order; returns the unsubscribe. */
  onEvents(listener: (events: DomainEvent[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async dispatch(raw: unknown): Promise<CommandAck> {
    const commandId =
      typeof raw === 'object' && raw !== null && 'commandId' in raw && typeof raw.commandId === 'string'
        ? raw.commandId
        : null;
    const parsed = parseCommand(raw);
    if (!parsed.success) {
      const type = typeof raw === 'object' && raw !== null && 'type' in raw ? raw.type : undefined;
      const unknownType = typeof type === 'string' && !Command.options.some((o) => o.shape.type.value === type);
      const error = unknownType
        ? new BatonError('unknown_command_type', `unknown command type "${type}"`)
        : fromZodError('invalid_command', 'command', parsed.error);
      return { ok: false, commandId, error: error.toInfo() };
    }
    const command = parsed.data;
    const namedThreadId = namedThread(command, this.store);
    if (actsBeforeItsStep(command)) {
      const existing = this.store.receipts.get(command.commandId);
      if (existing)
        return ackOf(
          replayReceipt(existing, { commandType: command.type, threadId: namedThreadId }),
          command.commandId,
          this.store.events.id,
        );
    }
    this.inFlight.enter(command.commandId);
    try {
      return await this.dispatchUnanswered(command, namedThreadId);
    } finally {
      this.inFlight.leave(command.commandId);
    }
  }

  /**
   * A valid command runs unless it was answered: looked up before it runs if it acts outside
   * the store first, otherwise found by its commit (the receipt's insert is the duplicate
   * check), which then drops what the step computed and answers with the stored receipt.
   */
  private async dispatchUnanswered(command: Command, namedThreadId: string | null): Promise<CommandAck> {
    // Checked before any step: a refused workspace leaves nothing stored, not even a receipt.
    if (command.type === 'thread.create') {
      const refused = await this.checkWorkspace(command.cwd).then(
        () => null,
        (error: unknown) => toErrorInfo(error),
      );
      if (refused) return { ok: false, commandId: command.commandId, error: refused };
    }

    const threadId = namedThreadId ?? newThreadOf(command, this.ids);
    if (!threadId)
      return {
        ok: false,
        commandId: command.commandId,
        error: { code: 'not_found', message: `${command.type}: no ${describeTarget(command)}` },
      };
    // A fork's workspace is named, and a given one checked, before its step: a refusal stores nothing.
    const named = command.type === 'thread.fork' ? await nameForkWorkspace(command, threadId, this) : { command };
    if ('error' in named) return { ok: false, commandId: command.commandId, error: named.error };
    const options = {
      commandId: command.commandId,
      commandType: command.type,
      namedThreadId,
      mayBeAnswered: this.inFlight.contested(command.commandId),
    };
    const thread = this.thread(threadId);
    // Rollbacks restore files before their step, a merge of files applies them; every other command is a plain step.
    const outcome =
      command.type === 'rollback.toRun'
        ? await thread.runPrepared(
            (t) => prepareRollbackToRun(t, command, this.store, this.checkpoints, (cwd) => this.checkWorkspace(cwd)),
            (t, r) => commitRollbackToRun(t, command, r),
            options,
          )
        : command.type === 'rollback.node'
          ? await thread.runPrepared(
              (t) => prepareRollbackNode(t, command, this.store, this.checkpoints, (cwd) => this.checkWorkspace(cwd)),
              (t, r) => commitRollbackNode(t, command, r),
              options,
            )
          : command.type === 'thread.merge_back' && command.files
            ? await mergeBackFiles(thread, command, this, options)
            : await thread.run((t) => handleCommand(t, named.command, this.handlerEnv), options);
    return ackOf(outcome, command.commandId, this.store.events.id);
  }

  /**
   * What the runtime's policy reads for a thread now: its provider's declaration for the
   * thread's agent (see `CapabilitySource`). A thread Baton does not have is a typed `not_found`.
   */
  threadCapabilities(threadId: string): ProviderCapabilities {
    const thread = this.store.projections.get('threads', threadId);
    if (!thread) throw new BatonError('not_found', `no thread ${threadId}`);
    return this.capabilities(thread.provider, thread.acpAgent);
  }

  /** Refuses (typed `invalid_payload`) a cwd that cannot be a workspace: relative, missing, `/`, or overlapping Baton's data dir. */
  checkWorkspace(cwd: string, options: WorkspaceCheckOptions = {}): Promise<void> {
    return checkWorkspaceCwd(cwd, this.protectedDirs, {
      ...options,
      ownWorkspaces: this.forkWorkspaces ? [this.forkWorkspaces] : [],
    });
  }

  /** A normalized provider event from an adapter (or a replayed transcript). */
  async ingest(raw: unknown): Promise<StepOutcome<Record<string, unknown>>> {
    const parsed = ProviderEvent.safeParse(raw);
    if (!parsed.success)
      return {
        ok: false,
        error: fromZodError('invalid_payload', 'provider event', parsed.error).toInfo(),
        lastSequence: this.store.lastSequence(),
      };
    const event = parsed.data;
    if (!this.threads.has(event.threadId) && !this.store.entities.get(event.threadId)) {
      return {
        ok: false,
        error: { code: 'not_found', message: `provider event for unknown thread ${event.threadId}` },
        lastSequence: this.store.lastSequence(),
      };
    }
    return this.thread(event.threadId).ingest((thread) => routeProviderEvent(thread, event));
  }

  /** The host port for one provider's adapters: what they may ask of this runtime (see `ProviderHost`). */
  providerHost(provider: ProviderKind): ProviderHost {
    return providerHostOf(this, provider);
  }

  /** Ends what a restart left open with its provider processes (see `recoverAfterRestart`); returns how many requests were marked. */
  recoverAfterRestart(): Promise<number> {
    return recoverAfterRestart({
      store: this.store,
      providers: this.providers,
      capabilities: this.capabilities,
      defaultProvider: this.defaultProvider,
      step: (threadId, work) => this.step(threadId, work),
    });
  }

  /**
   * Delivers every durable timer due by now to the entity that scheduled it, marking it
   * fired in the same step. Returns how many fired. Call it from a loop (the server does).
   */
  async fireDueTimers(): Promise<number> {
    const due = this.store.timers.dueAt(this.clock.nowMs());
    for (const timer of due) {
      const delivery = TimerDelivery.safeParse(timer.event);
      await this.thread(timer.threadId).run((thread) => {
        thread.current.timers.push({ op: 'fired', timerId: idOf('timer', timer.timerId) });
        // A timer whose event cannot be read is fired all the same, or it would come due for ever.
        if (!delivery.success)
          this.logger.warn({ timer: timer.timerId, error: delivery.error.message }, 'a timer held no event to deliver');
        else if (timer.entityId)
          thread.deliverMessage({ kind: delivery.data.kind, id: timer.entityId }, delivery.data.event);
        return {};
      });
    }
    return due.length;
  }

  /** Runs arbitrary work as a step on a thread: the effect worker settles effects this way. */
  step<T extends Record<string, unknown>>(threadId: ThreadId, work: (ctx: StepContext) => T): Promise<StepOutcome<T>> {
    return this.thread(threadId).run(work);
  }

  thread(threadId: string): ThreadActor {
    let actor = this.threads.get(threadId);
    if (actor) {
      // Re-insert: the map's order is least recently used first.
      this.threads.delete(threadId);
      this.threads.set(threadId, actor);
      return actor;
    }
    // Ids enter here from rows, commands and tests: checked once, as the thread's actor is made.
    actor = new ThreadActor(ThreadId.parse(threadId), {
      store: this.store,
      queue: this.queue,
      ids: this.ids,
      clock: this.clock,
      requestTtlMs: this.requestTtlMs,
      logger: this.logger,
      publish: (events) => this.publish(events),
      effectsQueued: () => this.effectsQueued(),
      timersChanged: () => this.timersChanged(),
    });
    this.threads.set(threadId, actor);
    this.passivateBeyondLimit();
    return actor;
  }

  /** Resolves when every step queued on any thread so far has committed (or failed). */
  async settle(): Promise<void> {
    await Promise.all([...this.threads.values()].map((t) => t.settled()));
  }

  get liveThreadCount(): number {
    return this.threads.size;
  }

  /** Drops every idle thread from memory; the next command or event rehydrates it. */
  passivateIdle(): number {
    let n = 0;
    for (const [id, actor] of this.threads) {
      if (!actor.idle) continue;
      actor.passivate();
      this.threads.delete(id);
      n += 1;
    }
    return n;
  }

  private passivateBeyondLimit(): void {
    for (const [id, actor] of this.threads) {
      if (this.threads.size <= this.maxLiveThreads) return;
      if (!actor.idle) continue;
      actor.passivate();
      this.threads.delete(id);
    }
  }

  private effectsQueued(): void {
    for (const listener of this.effectListeners) listener();
  }

  private timersChanged(): void {
    for (const listener of this.timerListeners) listener();
  }

  private publish(events: DomainEvent[]): void {
    for (const listener of this.listeners) {
      try {
        listener(events);
      } catch (error) {
        this.logger.error({ err: error }, 'an event listener failed');
      }
    }
  }
}

function ackOf(outcome: StepOutcome<Record<string, unknown>>, commandId: string, logId: string): CommandAck {
  return outcome.ok
    ? { ok: true, commandId, sequence: outcome.lastSequence, logId, result: outcome.result }
    : { ok: false, commandId, error: outcome.error };
}
