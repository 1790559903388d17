import type { MessagesRequest, MessagesResponder, MessagesTurn } from './scripted-messages-server.js';
import { lastUserText as lastUserMessageText, offlineMessagesResponder } from './scripted-messages-server.js';
import type { ModelTurn, RecordedRequest, Responder } from './scripted-model-server.js';
import { addFilePatch, lastUserText, offlineResponder } from './scripted-model-server.js';

/**
 * The offline models Baton runs on its embedded defaults, so that a user without
 * credentials can try every part of a thread from the console or a client: a line of the
 * message that starts with one of these tags makes the model do the thing; anything else
 * is echoed. Both APIs know them (Codex and codex-acp: Responses; Claude and
 * claude-agent-acp: Messages).
 */
export const OFFLINE_TAGS = {
  '[approve]': 'runs a command that asks for approval (it writes offline-made.txt)',
  '[edit]': 'adds a file (offline-notes.md)',
  '[plan]': 'updates a todo list',
  '[ask]': 'asks a question (Codex only in plan mode; the ACP agents cannot, and say so)',
  '[slow]': 'streams a long reply slowly, to steer or interrupt',
  '[hang]': 'starts a reply and never ends it',
} as const;

export type OfflineTag = keyof typeof OFFLINE_TAGS;

/** The command `[approve]` runs, and the file it writes. */
export const OFFLINE_COMMAND = "printf 'made by the offline model\\n' > offline-made.txt && ls";
export const OFFLINE_NOTES = { path: 'offline-notes.md', content: '# Notes\n\nWritten by the offline model.\n' };

const TODOS = [
  { step: 'read the code', status: 'completed' },
  { step: 'make the change', status: 'in_progress' },
  { step: 'run the tests', status: 'pending' },
] as const;

const QUESTION = {
  id: 'language',
  header: 'Language',
  question: 'Which language should I use?',
  options: [
    { label: 'TypeScript', description: 'typed' },
    { label: 'Rust', description: 'fast' },
  ],
};

/** Words enough to steer or interrupt a reply before it ends, at `SLOW_WORD_MS` a word. */
export const SLOW_WORDS = Array.from({ length: 60 }, (_, i) => `w${String(i + 1).padStart(2, '0')}`);
const SLOW_WORD_MS = 60;

/**
 * The tag the user's message asks for: the last line that starts with one. Lines of a
 * handoff Baton put before the message (`[run N] ...`) are not the user's words now.
 */
export function offlineTagOf(text: string): OfflineTag | null {
  const tags = Object.keys(OFFLINE_TAGS) as OfflineTag[];
  for (const line of text.split('\n').reverse()) {
    const start = line.trimStart();
    if (start.startsWith('[run ')) continue;
    const tag = tags.find((t) => start.startsWith(t));
    if (tag) return tag;
  }
  return null;
}

/** `[slow]` and `[hang]`, the same turn on both APIs. */
function streamed(
  tag: '[slow]' | '[hang]',
): { kind: 'text'; text: string; delayMs: number } | { kind: 'hang'; text: string } {
  return tag === '[slow]'
    ? { kind: 'text', text: SLOW_WORDS.join(' '), delayMs: SLOW_WORD_MS }
    : { kind: 'hang', text: 'Working on it' };
}

type ResponsesItem = { type?: string; role?: string; content?: unknown };

/** The Responses-API offline model (Codex, codex-acp). */
export function offlineAssistant(delayMs = 0): Responder {
  const echo = offlineResponder(delayMs);
  return (request: RecordedRequest, index: number): ModelTurn => {
    const input = Array.isArray(request.body.input) ? (request.body.input as ResponsesItem[]) : [];
    // A tool's output came back: the model says what it was.
    const last = input.at(-1) as (ResponsesItem & { output?: unknown }) | undefined;
    if (last?.type?.endsWith('_call_output')) return { kind: 'text', text: doneWith(last.output), delayMs };
    const tag = offlineTagOf(lastUserText(request));
    switch (tag) {
      case '[approve]':
        return { kind: 'exec', command: OFFLINE_COMMAND, escalated: true, justification: 'writes offline-made.txt' };
      case '[edit]':
        return { kind: 'patch', patch: addFilePatch(OFFLINE_NOTES.path, OFFLINE_NOTES.content) };
      case '[plan]':
        return { kind: 'plan', steps: TODOS.map((t) => ({ ...t })) };
      case '[ask]':
        return { kind: 'questions', questions: [QUESTION] };
      case '[slow]':
      case '[hang]':
        return streamed(tag);
      case null:
        return echo(request, index);
    }
  };
}

/** The Messages-API offline model (Claude, claude-agent-acp). */
export function offlineMessagesAssistant(delayMs = 0): MessagesResponder {
  const echo = offlineMessagesResponder(delayMs);
  return (request: MessagesRequest, index: number): MessagesTurn => {
    // The agent's side requests (a title, say) offer no tools: echoed.
    if (!request.body.tools?.length) return echo(request, index);
    const last = request.body.messages.at(-1)?.content;
    const result = Array.isArray(last) ? last.find((b) => b.type === 'tool_result') : undefined;
    if (result) return { kind: 'text', text: doneWith(result.content), delayMs };
    const tool = (name: string) => agentToolName(request, name);
    const tag = offlineTagOf(lastUserMessageText(request));
    switch (tag) {
      case '[approve]':
        return { kind: 'tool_use', name: tool('Bash'), input: { command: OFFLINE_COMMAND } };
      case '[edit]': {
        // Claude's Write takes an absolute path: the session's folder is in its environment reminder.
        const cwd = workingDirectoryOf(request);
        if (!cwd) return { kind: 'text', text: 'I cannot tell which folder to write in.', delayMs };
        const input = { file_path: `${cwd}/${OFFLINE_NOTES.path}`, content: OFFLINE_NOTES.content };
        return { kind: 'tool_use', name: tool('Write'), input };
      }
      case '[plan]': {
        const todos = TODOS.map((t) => ({ content: t.step, status: t.status, activeForm: t.step }));
        return { kind: 'tool_use', name: 'TodoWrite', input: { todos } };
      }
      case '[ask]': {
        // claude-agent-acp disables the tool: say so rather than call what is not there.
        if (!request.body.tools.some((t) => t.name === 'AskUserQuestion'))
          return { kind: 'text', text: 'This agent offers no tool to ask questions with.', delayMs };
        const { question, header, options } = QUESTION;
        return {
          kind: 'tool_use',
          name: 'AskUserQuestion',
          input: { questions: [{ question, header, options, multiSelect: false }] },
        };
      }
      case '[slow]':
      case '[hang]':
        return streamed(tag);
      case null:
        return echo(request, index);
    }
  };
}

/** The agent's own tool of that name where it offers one (claude-agent-acp's `mcp__acp__` tools), else Claude Code's. */
export function agentToolName(request: MessagesRequest, name: string): string {
  const names = (request.body.tools ?? []).map((t) => t.name);
  return names.find((n) => n === `mcp__acp__${name}`) ?? name;
}

/** The session's folder, as the agent's environment reminder names it. */
function workingDirectoryOf(request: MessagesRequest): string | null {
  for (const message of request.body.messages) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      const text = block.type === 'text' && typeof block.text === 'string' ? block.text : '';
      const cwd = /Primary working directory: (\S+)/.exec(text)?.[1];
      if (cwd) return cwd;
    }
  }
  return null;
}

/** What the model says after a tool: what came back, on one line and clipped, so a refusal reads as one. */
function doneWith(output: unknown): string {
  const text =
    typeof output === 'string'
      ? output
      : Array.isArray(output)
        ? output.map((b: { text?: unknown }) => (typeof b?.text === 'string' ? b.text : '')).join(' ')
        : '';
  // Codex heads a command's output with its own lines (chunk, wall time, exit code): past them.
  const body = /(?:^|\n)Output:\n([\s\S]*)$/.exec(text)?.[1] ?? text;
  // Claude Code appends reminders for the model to a tool's result: not what the tool said.
  const said = body.replace(/<system-reminder>[\s\S]*?(<\/system-reminder>|$)/g, '');
  const line = said.trim().replace(/\s+/g, ' ');
  return line ? `Done. It returned: ${line.length > 160 ? `${line.slice(0, 160)}...` : line}` : 'Done.';
}
