import type { RunId } from '../domain/ids.js';
import type { BarrierOutput } from '../machines/outputs.js';
import type { StepContext } from './step-context.js';

const closedStatuses = new Set(['completed', 'interrupted', 'failed', 'cancelled', 'rolled_back']);

/**
 * Carries out one in-memory step of a run's finalization barrier, then tells the run the
 * step is done. Everything it closes is delivered before that report, so the run moves on
 * only once the step's work is in the same commit.
 */
export function performBarrierStep(thread: StepContext, runId: RunId, step: BarrierOutput['step']): void {
  const view = thread.current.view;
  const threadId = thread.threadId;
  switch (step) {
    case 'flush_text':
      // Deltas are appended as events as they arrive; nothing is held back in memory.
      break;
    case 'close_messages':
      for (const m of view.list(
        'messages',
        threadId,
        (m) => m.runId === runId && m.role === 'assistant' && !m.completed,
      )) {
        thread.current.addEvent({
          type: 'message.completed',
          payload: { threadId: m.threadId, messageId: m.id, text: m.text },
        });
      }
      break;
    case 'finalize_plans':
      for (const plan of view.list('plans', threadId, (p) => p.runId === runId && !p.final)) {
        thread.current.addEvent({ type: 'plan.updated', payload: { plan: { ...plan, final: true } } });
      }
      break;
    case 'close_children': {
      const run = thread.context({ kind: 'run', id: runId });
      const status =
        run?.terminalStatus === 'completed' ? 'completed' : run?.terminalStatus === 'failed' ? 'failed' : 'interrupted';
      // Subagents own live provider threads of their own (a background one outlives its run), and
      // root nodes end only by their own turn; every other node still open is closed, but what
      // lies under a subagent still running is that subagent's (its tools, its asks).
      const open = view.list('graph_nodes', threadId, (n) => n.runId === runId && !closedStatuses.has(n.status));
      const openSubagents = new Set<string>(open.filter((n) => n.kind === 'subagent').map((n) => n.id));
      const byId = new Map<string, (typeof open)[number]>(open.map((n) => [n.id, n]));
      const underOpenSubagent = (parent: string | null): boolean => {
        for (let id = parent; id; id = byId.get(id)?.parentNodeId ?? null) if (openSubagents.has(id)) return true;
        return false;
      };
      for (const node of open.filter(
        (n) => n.kind !== 'subagent' && !n.countsForRun && !underOpenSubagent(n.parentNodeId),
      )) {
        thread.enqueue({ kind: 'execution_node', id: node.id }, { type: 'CLOSE', status });
      }
      break;
    }
  }
  thread.enqueue({ kind: 'run', id: runId }, { type: 'BARRIER_STEP_DONE', step });
}
