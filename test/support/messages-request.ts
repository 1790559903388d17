import type { MessagesRequest, MessagesRequestBody } from '../../src/providers/model/scripted-messages-server.js';

// What the Claude agent sent the scripted Messages-API model, read back by the tests.

type ContentBlock = Exclude<MessagesRequestBody['messages'][number]['content'], string>[number];

/** The texts of one role in a model request, without the agent's `<system-reminder>` blocks. */
export const texts = (request: MessagesRequest, role: 'user' | 'assistant'): string[] =>
  request.body.messages.flatMap((m) =>
    m.role !== role
      ? []
      : typeof m.content === 'string'
        ? [m.content]
        : m.content.flatMap((b) =>
            b.type === 'text' && typeof b.text === 'string' && !b.text.trimStart().startsWith('<system-reminder>')
              ? [b.text]
              : [],
          ),
  );

/** The user texts a model request carries, without the agent's `<system-reminder>` blocks. */
export const userTexts = (request: MessagesRequest): string[] => texts(request, 'user');

/** The agent session a model request belongs to. */
export const sessionOf = (request: MessagesRequest): string | undefined => request.headers['x-claude-code-session-id'];

/** The tool results a model request carries back, by tool_use id. */
export const toolResults = (request: MessagesRequest): ContentBlock[] =>
  request.body.messages.flatMap((m) =>
    typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result'),
  );
