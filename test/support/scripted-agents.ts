import type { ProviderHost, ProviderRuntime } from '../../src/actors/provider-host.js';
import { ProviderCapabilities } from '../../src/domain/capabilities.js';
import { effectPayloads, type Effect, type ProviderEffectKind } from '../../src/domain/effects.js';
import type { ThreadId } from '../../src/domain/ids.js';
import { ProviderEvent } from '../../src/domain/provider-events.js';
import type { ProviderKind } from '../../src/domain/statuses.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import { payloadOf } from '../../src/providers/effect-payloads.js';
import type { NormalizerScope, Provider, ProviderNormalizer } from '../../src/providers/provider.js';
import { ThreadAdapters, type ThreadAdapter } from '../../src/providers/thread-adapters.js';

/**
 * Scripted agents for runtime-level tests of what a provider's conversation holds. Each
 * keeps its native conversations (by native thread ref) with the user text every turn
 * received (the seed first, when Baton sent one), answers each turn `answer to <runId>`,
 * and, when it declares `canRollbackThread`, rolls a conversation back the way Baton's
 * Claude adapter does: cut before the first turn of a run after the target ordinal, and
 * report what it kept (`thread.reverted`). Its adapters sit behind the real
 * `ThreadAdapters`, so seeds are built and recorded by the real reseed path.
 */

export interface NativeTurn {
  runId: string;
  attemptId: string;
  providerThreadId: string;
  /** The text the turn start carried: Baton's seed (if any), a blank line, the user's message. */
  text: string;
  ref: string;
}

export interface Conversation {
  ref: string;
  turns: NativeTurn[];
}

export const replyTo = (runId: string): string => `answer to ${runId}`;

/** One provider's agent: its conversations, and every effect it was handed (for the report of a failure). */
export class ScriptedAgent {
  readonly conversations = new Map<string, Conversation>();
  readonly problems: string[] = [];
  private turnCount = 0;

  constructor(
    readonly id: ProviderKind,
    readonly canRollbackThread: boolean,
    /** The ACP agent it is, for one of several behind one provider: its conversations are its own. */
    readonly acpAgent: string | null = null,
  ) {}

  /** Whether a native ref is one of this agent's conversations. */
  holds(ref: string): boolean {
    return this.conversations.has(ref);
  }

  /** The conversation a provider thread is bound to (by its native ref), if it ever took a turn here. */
  conversationOf(host: ProviderHost, providerThreadId: string): Conversation | null {
    const ref = host.nativeThreadRef(providerThreadId);
    return ref ? (this.conversations.get(ref) ?? null) : null;
  }

  nextTurnRef(conversation: Conversation): string {
    return `${conversation.ref}:turn${++this.turnCount}`;
  }

  newConversation(): Conversation {
    const conversation = { ref: `${this.acpAgent ?? this.id}-conv-${this.conversations.size + 1}`, turns: [] };
    this.conversations.set(conversation.ref, conversation);
    return conversation;
  }
}

/** One provider's agents: one, or (ACP) one per agent name, each turn going to the agent it names. */
type Agents = ScriptedAgent | Record<string, ScriptedAgent>;

/** The adapter of one app thread: it carries out turn starts (and rollbacks) synchronously, reporting through the host. */
class ScriptedAdapter implements ThreadAdapter {
  readonly running = false;
  /** The agent of the last turn (a problem is reported against it). */
  private agent: ScriptedAgent;

  constructor(
    private readonly agents: Agents,
    private readonly host: ProviderHost,
    private readonly threadId: ThreadId,
  ) {
    this.agent = agents instanceof ScriptedAgent ? agents : Object.values(agents)[0]!;
  }

  private agentNamed(acpAgent: string | null | undefined): ScriptedAgent {
    if (this.agents instanceof ScriptedAgent) return this.agents;
    const agent = acpAgent ? this.agents[acpAgent] : undefined;
    if (!agent) throw new Error(`no scripted ACP agent named ${acpAgent}`);
    return agent;
  }

  /** The agent whose conversation a provider thread is bound to (for a rollback, which names no agent). */
  private agentHolding(providerThreadId: string): ScriptedAgent {
    if (this.agents instanceof ScriptedAgent) return this.agents;
    const ref = this.host.nativeThreadRef(providerThreadId);
    return Object.values(this.agents).find((a) => ref !== null && a.holds(ref)) ?? this.agent;
  }

  private async report(event: ProviderEvent): Promise<void> {
    const outcome = await this.host.ingest(ProviderEvent.parse(event));
    if (!outcome.ok) {
      this.agent.problems.push(`${event.type} refused: ${outcome.error.message}`);
      throw new Error(`${this.agent.id}: ${event.type} refused: ${outcome.error.message}`);
    }
  }

  async carryOut(effect: Effect): Promise<void> {
    if (effect.kind === 'provider.turn.start') return this.turn(effect);
    if (effect.kind === 'provider.thread.rollback') return this.rollBack(effect);
    if (effect.kind === 'provider.session.stop') return;
    throw new Error(`the scripted ${this.agent.id} agent does not carry out ${effect.kind}`);
  }

  private async turn(effect: Effect): Promise<void> {
    const p = payloadOf(effectPayloads['provider.turn.start'], effect);
    const runId = effect.runId!;
    const providerThreadId = p.providerThreadId;
    if (!providerThreadId) throw new Error('a turn start without its provider thread');
    const onThread = { threadId: this.threadId };
    this.agent = this.agentNamed(p.acpAgent);
    // An agent cannot take up another agent's session: Baton must never ask it to.
    const bound = this.host.nativeThreadRef(providerThreadId);
    if (bound !== null && !this.agent.holds(bound))
      this.agent.problems.push(`${this.agent.acpAgent ?? this.agent.id} was asked to take up ${bound}, not its own`);
    // Resumed by the native ref bound to the provider thread, else a new conversation, bound as it loads.
    let conversation = this.agent.conversationOf(this.host, providerThreadId);
    if (!conversation) {
      conversation = this.agent.newConversation();
      await this.report({
        type: 'thread.loaded',
        ...onThread,
        providerThreadId,
        nativeThreadRef: conversation.ref,
        resumeCursor: conversation.ref,
      });
    }
    const ref = this.agent.nextTurnRef(conversation);
    conversation.turns.push({ runId, attemptId: p.attemptId, providerThreadId, text: p.text, ref });
    const onRun = { ...onThread, runId };
    const nodeId = p.rootNodeId;
    await this.report({ type: 'turn.started', ...onRun, attemptId: p.attemptId, nodeId, nativeTurnRef: ref });
    const messageId = this.host.ids.next('message');
    const text = replyTo(runId);
    await this.report({ type: 'message.delta', ...onRun, nodeId, messageId, delta: text });
    await this.report({ type: 'message.completed', ...onRun, nodeId, messageId, text });
    await this.report({
      type: 'turn.completed',
      ...onRun,
      attemptId: p.attemptId,
      nodeId,
      status: 'completed',
      error: null,
    });
  }

  /** Back to the end of run `runOrdinal`: the conversation is cut before its first turn of a later run. */
  private async rollBack(effect: Effect): Promise<void> {
    const p = payloadOf(effectPayloads['provider.thread.rollback'], effect);
    const runs = new Map<string, { ordinal: number | null; status: string }>(
      this.host.runs(this.threadId).map((r) => [r.id, r]),
    );
    const later = (t: NativeTurn) => {
      const ordinal = runs.get(t.runId)?.ordinal ?? null;
      return ordinal === null || ordinal > p.runOrdinal;
    };
    const conversation = this.agentHolding(p.providerThreadId).conversationOf(this.host, p.providerThreadId);
    const all = conversation?.turns ?? [];
    const cut = all.findIndex(later);
    const remaining = cut < 0 ? all : all.slice(0, cut);
    if (conversation) conversation.turns = remaining;
    const kept = all.filter((t) => !later(t) && runs.get(t.runId)?.status !== 'rolled_back').map((t) => t.ref);
    const refs = remaining.map((t) => t.ref);
    await this.report({
      type: 'thread.reverted',
      threadId: this.threadId,
      providerThreadId: p.providerThreadId,
      runOrdinal: p.runOrdinal,
      remainingTurnRefs: refs,
      missingTurnRefs: kept.filter((r) => !refs.includes(r)),
      unexpectedTurnRefs: refs.filter((r) => !kept.includes(r)),
    });
  }

  stop(): void {}
  detach(): void {}
}

/** Its frames are Baton's provider events already (the adapter reports them directly; nothing drives this). */
const normalizer = (scope: NormalizerScope): ProviderNormalizer => ({
  normalize: (frame) => {
    const event = ProviderEvent.safeParse(frame);
    return event.success && event.data.threadId === scope.threadId ? [event.data] : [];
  },
});

/** The effect handlers of a provider's agents, through the real `ThreadAdapters` (seeds included). */
export function scriptedHandlers(agents: Agents, runtime: ProviderRuntime): Provider['handlers'] {
  const agent = agents instanceof ScriptedAgent ? agents : Object.values(agents)[0]!;
  const host = runtime.providerHost(agent.id);
  const adapters = new ThreadAdapters({
    make: (threadId) => new ScriptedAdapter(agents, host, threadId),
    activeRunId: (threadId) => host.activeRunId(threadId),
    maxHandoffChars: 100_000,
  });
  const kinds: ProviderEffectKind[] = ['provider.turn.start', 'provider.session.stop'];
  // A provider that cannot roll back carries out no rollback: one sent to it is settled unsupported.
  if (agent.canRollbackThread) kinds.push('provider.thread.rollback');
  return adapters.handlers(kinds);
}

/**
 * A whole provider for a scripted agent (not Codex: the harness registers Codex with the
 * handlers it is given); for ACP, its agents by name.
 */
export function scriptedProvider(
  agent: ScriptedAgent,
  runtime: ProviderRuntime,
  agents?: string[] | Record<string, ScriptedAgent>,
): Provider {
  const named = agents && !Array.isArray(agents) ? agents : null;
  const names = agents === undefined ? undefined : Array.isArray(agents) ? agents : Object.keys(agents);
  return {
    id: agent.id,
    capabilities: ProviderCapabilities.parse({
      ...codexCapabilities,
      version: `${agent.id}-scripted/1`,
      threads: { ...codexCapabilities.threads, canRollbackThread: agent.canRollbackThread },
    }),
    handlers: scriptedHandlers(named ?? agent, runtime),
    // The ACP provider carries the agent a thread names; nothing else is applied.
    appliedSettings: names ? ['acpAgent'] : [],
    ...(names ? { agents: names } : {}),
    createNormalizer: normalizer,
  };
}
