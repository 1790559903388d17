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
    // An agent that names its tool call later (an ACP "Terminal" that turns out to run a command),
    // and the files a file change touched, once they are known.
    case 'node.detail':
      return detailLines(event.payload.title, [
        filesLine(event.payload.detail.files),
        outputLines(event.payload.detail.output),
      ]);
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

/**
 * `describeEvent` for one stream of events (a `tail`, a `send --wait`): a node's files and
 * output are said once, not again when the agent repeats them as the tool completes.
 */
export function eventDescriber(): (event: DomainEvent) => string | null {
  const said = new Set<string>();
  const once = (nodeId: string, lines: string): string => {
    if (!lines || said.has(`${nodeId}\n${lines}`)) return '';
    said.add(`${nodeId}\n${lines}`);
    return lines;
  };
  return (event) => {
    if (event.type !== 'node.detail') return describeEvent(event);
    const { nodeId, title, detail } = event.payload;
    return detailLines(title, [once(nodeId, filesLine(detail.files)), once(nodeId, outputLines(detail.output))]);
  };
}

function detailLines(title: string | undefined, facts: string[]): string | null {
  return `${title ? `  [tool is] ${title}\n` : ''}${facts.join('')}` || null;
}

/** The most of a tool's output said in a terminal: its last lines. */
const OUTPUT_LINES = 5;

/** What a tool returned (`detail.output`, text on every provider): its last lines, each under a bar. */
export function outputLines(output: unknown): string {
  if (typeof output !== 'string' || !output.trim()) return '';
  const lines = output.replace(/\s+$/, '').split('\n');
  const shown = lines
    .slice(-OUTPUT_LINES)
    .map((line) => `  | ${line.length > 200 ? `${line.slice(0, 200)}...` : line}\n`);
  const left = lines.length - shown.length;
  return `${left > 0 ? `  | (${left} line(s) before)\n` : ''}${shown.join('')}`;
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

/** A file change's files (`detail.files`, as every provider tells them), e.g. `[files] add notes.md, update a.ts`. */
export function filesLine(files: unknown): string {
  if (!Array.isArray(files) || files.length === 0) return '';
  const named = files.map((f: { path?: unknown; kind?: { type?: unknown } }) =>
    [typeof f?.kind?.type === 'string' ? f.kind.type : '', typeof f?.path === 'string' ? f.path : '?']
      .filter(Boolean)
      .join(' '),
  );
  return `  [files] ${named.join(', ')}\n`;
}
