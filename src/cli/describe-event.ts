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
    case 'runtime-request.opened':
      return `  [needs ${event.payload.request.kind === 'user_input' ? 'an answer' : 'approval'}] ${event.payload.request.prompt}  (request ${event.payload.request.id})\n`;
    case 'runtime-request.resolved':
      return `  [${event.payload.decision ?? 'answered'}]\n`;
    case 'runtime-request.capability-changed':
      return event.payload.responseCapability.type === 'not_resumable'
        ? `  [request ${event.payload.requestId} can no longer be answered: ${event.payload.responseCapability.reason}]\n`
        : null;
    case 'plan.updated':
      return `  [plan] ${event.payload.plan.steps.map((s) => `${s.status === 'completed' ? '✓' : s.status === 'in_progress' ? '…' : '·'} ${s.text}`).join('  ')}\n`;
    case 'run.interrupt-requested':
      return '  [interrupt requested]\n';
    case 'run.terminal':
      return `  [run ${event.payload.status}${event.payload.error ? `: ${event.payload.error.message}` : ''}]\n`;
    case 'checkpoint.recorded':
      return event.payload.checkpoint.runOrdinal
        ? `  [checkpoint for run ${event.payload.checkpoint.runOrdinal}: ${event.payload.checkpoint.status}${event.payload.checkpoint.diff ? `, ${event.payload.checkpoint.diff.files} file(s) changed` : ''}]\n`
        : null;
    case 'thread.rolled-back':
      return `  [rolled back to run ${event.payload.runOrdinal}]\n`;
    case 'runtime.warning':
      return `  [warning] ${event.payload.message}\n`;
    default:
      return null;
  }
}
