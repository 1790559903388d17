import type { DomainEvent } from '../domain/events.js';

/** One human line (or fragment, for streamed text) per event worth showing in a terminal. */
export function describeEvent(event: DomainEvent): string | null {
  switch (event.type) {
    case 'message.created':
      return event.payload.message.role === 'user' ? `\n> ${event.payload.message.text}\n` : '\n< ';
    case 'message.delta':
      return event.payload.delta;
    case 'message.completed':
      return '\n';
    case 'node.created':
      return event.payload.node.kind === 'tool_call' ? `  [tool] ${event.payload.node.title ?? ''}\n` : null;
    // An agent that names its tool call later (an ACP "Terminal" that turns out to run a command).
    case 'node.detail':
      return event.payload.title ? `  [tool is] ${event.payload.title}\n` : null;
    case 'runtime-request.opened':
      return requestLine(event.payload.request.kind, event.payload.request.prompt, event.payload.request.id);
    case 'runtime-request.resolved':
      return `  [${event.payload.decision ?? 'answered'}]\n`;
    case 'runtime-request.capability-changed':
      return event.payload.responseCapability.type === 'not_resumable'
        ? `  [request ${event.payload.requestId} can no longer be answered: ${event.payload.responseCapability.reason}]\n`
        : null;
    case 'plan.updated':
      return planLine(event.payload.plan.steps);
    case 'run.interrupt-requested':
      return '  [interrupt requested]\n';
    case 'run.terminal':
      return `  [run ${event.payload.status}${event.payload.error ? `: ${event.payload.error.message}` : ''}]\n`;
    case 'checkpoint.recorded':
      return event.payload.checkpoint.runOrdinal
        ? checkpointLine(
            event.payload.checkpoint.runOrdinal,
            event.payload.checkpoint.status,
            event.payload.checkpoint.diff?.files ?? null,
          )
        : null;
    case 'thread.rolled-back':
      return `  [rolled back to run ${event.payload.runOrdinal}]\n`;
    case 'runtime.warning':
      return `  [warning] ${event.payload.message}\n`;
    default:
      return null;
  }
}

/** A request waiting for the user: what it asks and the id to answer it by. */
export function requestLine(kind: string, prompt: string, requestId: string): string {
  return `  [needs ${kind === 'user_input' ? 'an answer' : 'approval'}] ${prompt}  (request ${requestId})\n`;
}

/** A plan's steps on one line, each marked done (✓), under way (…) or to do (·). */
export function planLine(steps: readonly { text: string; status: string }[]): string {
  const mark = (status: string) => (status === 'completed' ? '✓' : status === 'in_progress' ? '…' : '·');
  return `  [plan] ${steps.map((s) => `${mark(s.status)} ${s.text}`).join('  ')}\n`;
}

/** A run's checkpoint: its status and, once captured, how many files the run changed. */
export function checkpointLine(runOrdinal: number, status: string, files: number | null): string {
  return `  [checkpoint for run ${runOrdinal}: ${status}${files === null ? '' : `, ${files} file(s) changed`}]\n`;
}
