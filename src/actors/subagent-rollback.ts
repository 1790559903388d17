import type { NodeId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';
import type { StepContext } from './step-context.js';

/**
 * What a `rollback.node` to a subagent's checkpoint does to the child's own conversation.
 * A Codex child is one native thread across its turns: a follow-up task the parent sends it
 * is a new subagent node bound to the same `detail.nativeThreadId`, so restoring an earlier
 * turn's files would also have to drop the later turns from the child's thread. No provider
 * can (`subagents.canRollbackSubagentThread` is false on each: Codex 0.169.0 refuses
 * `thread/revert` of a multi_agent_v2 child, docs/codex.md), so the files are restored and
 * the answer says the child's conversation was not rolled back, never silently.
 */
export interface ChildConversation {
  /**
   * `nothing_to_drop`: the restored turn is the child's last; `not_supported`: the child's
   * thread keeps its later turns; null: no child provider thread is bound to the node (a
   * tool's scope, a Claude subagent, a delegated task, which is a Baton thread of its own).
   */
  conversation: 'nothing_to_drop' | 'not_supported' | null;
  /** The child's later turns its thread still holds: their subagent nodes, oldest first. */
  laterChildNodeIds: NodeId[];
}

const nativeThreadOf = (detail: Record<string, unknown> | undefined): string | null =>
  typeof detail?.['nativeThreadId'] === 'string' ? detail['nativeThreadId'] : null;

/**
 * The child's turns after `nodeId`'s: the subagent nodes of the thread bound to the same
 * native thread, started after it (in any run: a rollback of the parent's runs leaves the
 * child's own thread as it was).
 */
export function childConversationAfter(store: Store, threadId: string, nodeId: NodeId): ChildConversation {
  const nodes = store.projections.list('graph_nodes', threadId);
  const at = nodes.findIndex((n) => n.id === nodeId);
  const node = nodes[at];
  const native = node?.kind === 'subagent' ? nativeThreadOf(node.detail) : null;
  if (!native) return { conversation: null, laterChildNodeIds: [] };
  const later = nodes
    .slice(at + 1)
    .filter((n) => n.kind === 'subagent' && nativeThreadOf(n.detail) === native)
    .map((n) => n.id);
  return { conversation: later.length ? 'not_supported' : 'nothing_to_drop', laterChildNodeIds: later };
}

/** A child whose later turns stay in its thread: a warning on the node's run, beside the ack's answer. */
export function warnChildKept(thread: StepContext, nodeId: NodeId, child: ChildConversation): void {
  if (child.conversation !== 'not_supported') return;
  const runId = thread.current.view.get('graph_nodes', nodeId)?.runId ?? null;
  const n = child.laterChildNodeIds.length;
  thread.current.addEvent({
    type: 'runtime.warning',
    payload: {
      threadId: thread.threadId,
      runId,
      message: `subagent ${nodeId}'s files were restored, but its own conversation still holds its ${n} later turn${n === 1 ? '' : 's'} (${child.laterChildNodeIds.join(', ')}): the provider cannot roll a subagent's thread back; a fork from node ${nodeId} goes on from this turn`,
    },
  });
}
