import {
  ScriptedMessagesServer,
  type MessagesRequest,
  type MessagesTurn,
} from '../providers/model/scripted-messages-server.js';

/** The Claude demo's prompts, in order: each one picks what the offline model does. */
export const claudeDemoPrompts = {
  hello: 'Say hello',
  write: 'Create hello.txt',
  think: 'Think about it for a long time',
} as const;

export const claudeDemoCommand = 'echo "hello from the demo" > hello.txt';

/** The newest user message's own text (the agent's `<system-reminder>` blocks left out), and whether it answers a tool. */
function lastUser(request: MessagesRequest): { text: string; toolResult: boolean } {
  const last = request.body.messages.filter((m) => m.role === 'user').at(-1);
  if (!last) return { text: '', toolResult: false };
  if (typeof last.content === 'string') return { text: last.content, toolResult: false };
  const text = last.content
    .flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []))
    .filter((t) => !t.trimStart().startsWith('<system-reminder>'))
    .join(' ');
  return { text, toolResult: last.content.some((b) => b.type === 'tool_result') };
}

/**
 * The offline Messages-API model of `baton demo --provider claude`: it answers by what it is
 * asked (not by request count), so whatever the agent asks on the side cannot shift the script.
 */
export function claudeDemoTurn(request: MessagesRequest): MessagesTurn {
  const { text, toolResult } = lastUser(request);
  if (toolResult) return { kind: 'text', text: 'I wrote hello.txt for you.', delayMs: 40 };
  if (text.includes(claudeDemoPrompts.hello))
    return {
      kind: 'text',
      text: "Hello! I am Claude, running offline against Baton's scripted Messages-API model.",
      delayMs: 40,
    };
  if (text.includes(claudeDemoPrompts.write))
    return { kind: 'tool_use', name: 'Bash', input: { command: claudeDemoCommand, description: 'write hello.txt' } };
  if (text.includes(claudeDemoPrompts.think)) return { kind: 'hang' };
  return { kind: 'text', text: 'That is all for the demo.' };
}

/** The demo's own Messages-API model on 127.0.0.1 (Baton points the Claude agent at it). */
export const startClaudeDemoModel = (): Promise<ScriptedMessagesServer> =>
  new ScriptedMessagesServer(claudeDemoTurn).start();
