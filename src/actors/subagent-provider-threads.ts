import type { ProviderEvent } from '../domain/provider-events.js';
import type { StepContext } from './step-context.js';

type SubagentThread = Extract<ProviderEvent, { type: 'subagent.thread' }>;

/**
 * A subagent's own native thread as a provider thread of Baton's (`subagent.thread`): made
 * once, owned by the node that spawned the child, its native ref bound as evidence; then it
 * follows the child's turns. Its id is the normalizer's (from its IdSource), so a replay
 * makes the same one. A follow-up node of the same child names the same provider thread,
 * in a later session too (the session's end unloads it; the next one loads it again).
 */
export function routeSubagentThread(thread: StepContext, event: SubagentThread): void {
  const ref = { kind: 'provider_thread' as const, id: event.providerThreadId };
  const run = thread.context({ kind: 'run', id: event.runId });
  switch (event.change) {
    case 'bound': {
      // A child an earlier session met: its provider thread is loaded again, in this session.
      if (thread.state(ref))
        return thread.deliver(ref, { type: 'LOADED', nativeThreadRef: event.nativeThreadRef, resumeCursor: null });
      const provider =
        run?.provider ?? thread.require({ kind: 'thread_supervisor', id: event.threadId }).context.provider;
      thread.spawn('provider_thread', event.providerThreadId, {
        providerThreadId: event.providerThreadId,
        threadId: event.threadId,
        provider,
        forkedFrom: null,
        owner: { type: 'node', nodeId: event.nodeId },
      });
      // Scoped to its owner node, not the app thread: a child met again after it was closed
      // gets a provider thread of its own, and that is never a binding conflict.
      thread.current.bindings.push({
        provider,
        scope: `node:${event.nodeId}`,
        nativeRef: event.nativeThreadRef,
        appId: event.providerThreadId,
        entityKind: 'provider_thread',
        correlation: 'native_exact',
      });
      thread.deliver(ref, { type: 'LOADED', nativeThreadRef: event.nativeThreadRef, resumeCursor: null });
      return;
    }
    case 'turn_began':
      thread.deliver(ref, { type: 'TURN_BEGAN', runOrdinal: run?.ordinal ?? null });
      return;
    case 'turn_ended':
      thread.deliver(ref, { type: 'TURN_ENDED' });
      return;
    case 'closed':
      thread.deliver(ref, { type: 'CLOSE' });
      return;
    case 'lost':
      // The child's conversation outlives the session (Codex keeps it): not loaded, not ended.
      thread.deliver(ref, { type: 'UNLOADED', reason: 'the session that ran the subagent ended' });
      return;
  }
}
