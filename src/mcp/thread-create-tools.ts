import { z } from 'zod';
import type { Runtime } from '../actors/runtime.js';
import { BatonError, toErrorInfo, type ErrorInfo } from '../domain/errors.js';
import { InteractionMode, ProviderKind, RuntimeMode } from '../domain/statuses.js';
import { ClientRequestId, ToolCommands } from './tool-commands.js';
import { defineTool, type McpTool } from './tool-registry.js';
import { ownerOnly } from './thread-views.js';

/** A new thread's settings: `thread.create`'s fields. */
const threadSpec = {
  cwd: z.string().min(1).describe('The workspace: an absolute path to an existing directory'),
  title: z.string().max(500).optional(),
  provider: ProviderKind.optional().describe(
    'Default: Baton’s default provider (orchestrator_capabilities lists them)',
  ),
  model: z.string().min(1).optional(),
  runtimeMode: RuntimeMode.optional().describe('Default: workspace_write'),
  interactionMode: InteractionMode.optional().describe('Default: default'),
  acpAgent: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('With provider acp: the agent to run (orchestrator_capabilities lists them)'),
};

type Created = { threadId: string };
type Sent = { runId: string; messageId: string; dispatched: string };

/** Creates threads (`thread.create`), and a thread with its first message. */
export function threadCreateTools(runtime: Runtime): McpTool[] {
  return [
    defineTool({
      name: 'create_threads',
      title: 'Create threads',
      description:
        'Creates one or more Baton threads (no run yet). Each thread is created or refused on its own: the result lists, in order, `{ ok: true, threadId }` or `{ ok: false, error }`; the call is an error only when every thread was refused.',
      readOnly: false,
      available: ownerOnly,
      input: z
        .object({
          threads: z.array(z.object(threadSpec).strict()).min(1).max(20),
          clientRequestId: ClientRequestId.optional(),
        })
        .strict(),
      async run({ threads, clientRequestId }, call) {
        const commands = new ToolCommands(runtime, call.scope, 'create_threads', clientRequestId);
        const results: ({ ok: true; threadId: string } | { ok: false; error: ErrorInfo })[] = [];
        for (const [i, spec] of threads.entries()) {
          const result = await commands.send<Created>(String(i), 'thread.create', spec).then(
            ({ threadId }) => ({ ok: true as const, threadId }),
            (error: unknown) => ({ ok: false as const, error: toErrorInfo(error) }),
          );
          results.push(result);
        }
        const refused = results.flatMap((r) => (r.ok ? [] : [r.error]));
        if (refused.length === results.length)
          throw new BatonError(refused[0]!.code, refused[0]!.message, { threads: results });
        return { threads: results };
      },
    }),
    defineTool({
      name: 'thread_start',
      title: 'Start a thread',
      description:
        'Creates a thread and sends it its first message: `{ threadId, runId, messageId, dispatched }`. Follow with thread_wait for the answer.',
      readOnly: false,
      available: ownerOnly,
      input: z
        .object({
          ...threadSpec,
          text: z.string().min(1).max(1_000_000).describe('The first message'),
          clientRequestId: ClientRequestId.optional(),
        })
        .strict(),
      async run({ text, clientRequestId, ...spec }, call) {
        const commands = new ToolCommands(runtime, call.scope, 'thread_start', clientRequestId);
        const { threadId } = await commands.send<Created>('create', 'thread.create', spec);
        try {
          const sent = await commands.send<Sent>('send', 'thread.message.send', { threadId, text });
          return { threadId, runId: sent.runId, messageId: sent.messageId, dispatched: sent.dispatched };
        } catch (error) {
          // The thread stands; the refusal names it, so the caller can send to it again.
          const info = toErrorInfo(error);
          throw new BatonError(info.code, info.message, { threadId, cause: info.details });
        }
      },
    }),
  ];
}
