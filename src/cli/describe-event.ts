import type { DomainEvent } from '../domain/events.js';

/** One human line (or fragment, for streamed text) per event worth showing in a terminal. */
export function describeEvent(event: DomainEvent): string | null {
  const p = event.payload as Record<string, any>;
  switch (event.type) {
    case 'message.created':
      return p.message.role === 'user' ? `\n> ${p.message.text}\n` : '\n< ';
    case 'message.delta':
      return p.delta;
    case 'message.completed':
      return '\n';
    case 'node.created':
      return p.node.kind === 'tool_call' ? `  [tool] ${p.node.title ?? ''}\n` : null;
    case 'runtime-request.opened':
      return `  [needs ${p.request.kind === 'user_input' ? 'an answer' : 'approval'}] ${p.request.prompt}  (request ${p.request.id})\n`;
    case 'runtime-request.resolved':
      return `  [${p.decision ?? 'answered'}]\n`;
    case 'runtime-request.capability-changed':
      return p.responseCapability.type === 'not_resumable' ? `  [request ${p.requestId} can no longer be answered: ${p.responseCapability.reason}]\n` : null;
    case 'plan.updated':
      return `  [plan] ${p.plan.steps.map((s: { text: string; status: string }) => `${s.status === 'completed' ? '✓' : s.status === 'in_progress' ? '…' : '·'} ${s.text}`).join('  ')}\n`;
    case 'run.interrupt-requested':
      return '  [interrupt requested]\n';
    case 'run.terminal':
      return `  [run ${p.status}${p.error ? `: ${p.error.message}` : ''}]\n`;
    case 'checkpoint.recorded':
      return p.checkpoint.runOrdinal ? `  [checkpoint for run ${p.checkpoint.runOrdinal}: ${p.checkpoint.status}${p.checkpoint.diff ? `, ${p.checkpoint.diff.files} file(s) changed` : ''}]\n` : null;
    case 'thread.rolled-back':
      return `  [rolled back to run ${p.runOrdinal}]\n`;
    case 'runtime.warning':
      return `  [warning] ${p.message}\n`;
    default:
      return null;
  }
}
