import { z } from 'zod';
import { PlanStep } from '../domain/entities.js';
import { RunView, TurnItemView } from '../domain/projections.js';
import { runTerminalStatuses } from '../domain/statuses.js';
import { checkpointLine, planLine, requestLine } from './describe-event.js';

/** The parts of a `thread` stream snapshot the CLI prints. */
export const ThreadHistory = z.object({ runs: z.array(RunView), visibleTurnItems: z.array(TurnItemView) });
export type ThreadHistory = z.infer<typeof ThreadHistory>;

const ended = new Set<string>(runTerminalStatuses);
const CheckpointItem = z.object({
  runOrdinal: z.number().nullable().optional(),
  diff: z.object({ files: z.number() }).nullable().optional(),
});

/**
 * The conversation so far, in the lines `describeEvent` prints for the events that made it,
 * so a thread followed after it started reads the same as one followed from its start. An
 * assistant message still streaming at the end stays open: its next deltas go on its line.
 */
export function describeThread(history: ThreadHistory): string {
  const runs = new Map(history.runs.map((r) => [r.id, r]));
  const runEnd = (runId: RunView['id'] | null) => {
    const run = runId === null ? undefined : runs.get(runId);
    if (!run || !ended.has(run.status)) return '';
    return `  [run ${run.status}${run.error ? `: ${run.error.message}` : ''}]\n`;
  };
  let out = '';
  let runId: RunView['id'] | null = null;
  history.visibleTurnItems.forEach((item, i) => {
    // An item of no run (the baseline checkpoint, a context seed) does not end the one before it.
    if (item.runId !== null && item.runId !== runId) {
      out += runEnd(runId);
      runId = item.runId;
    }
    out += describeItem(item, i === history.visibleTurnItems.length - 1);
  });
  return out + runEnd(runId);
}

function describeItem(item: TurnItemView, last: boolean): string {
  switch (item.kind) {
    case 'user_message':
      return `\n> ${item.text}\n`;
    case 'assistant_message':
      return `\n< ${item.text}${item.status === 'completed' || !last ? '\n' : ''}`;
    case 'tool_call':
      return `  [tool] ${item.text}\n`;
    case 'approval_request':
    case 'user_input_request':
      return item.status === 'pending'
        ? requestLine(item.kind === 'user_input_request' ? 'user_input' : 'approval', item.text, item.id)
        : `  [request ${item.status}] ${item.text}\n`;
    case 'plan':
    case 'todo_list': {
      const steps = z.array(PlanStep).safeParse(item.data['steps']);
      return steps.success && steps.data.length > 0 ? planLine(steps.data) : '';
    }
    case 'checkpoint': {
      const at = CheckpointItem.safeParse(item.data);
      if (!at.success || !at.data.runOrdinal) return '';
      return checkpointLine(at.data.runOrdinal, item.status, at.data.diff?.files ?? null);
    }
    default:
      return '';
  }
}
