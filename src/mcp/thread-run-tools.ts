import { z } from 'zod';
import type { Runtime } from '../actors/runtime.js';
import { BatonError } from '../domain/errors.js';
import { RunId, ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import { ProviderKind, type DispatchMode } from '../domain/statuses.js';
import { ClientRequestId, ToolCommands } from './tool-commands.js';
import { defineTool, type McpTool } from './tool-registry.js';
import { ownerOnly, requireRunOf, requireThread } from './thread-views.js';

/** thread_send's modes, as Baton's dispatch modes. */
const dispatchModes = {
  auto: 'auto',
  queue: 'queue_after_active',
  steer: 'steer_active',
  restart: 'restart_active',
} as const satisfies Record<string, DispatchMode>;

const SendMode = z
  .enum(['auto', 'queue', 'steer', 'restart'])
  .describe(
    'With no active run every mode starts one. While a run is active: auto and steer steer it (natively, else by interrupt and restart, as the provider can; else the message waits as the next run), queue waits for it, restart interrupts it and restarts it with this message',
  );

/** A finished run a fork can be taken from: completed, or interrupted or failed with its checkpoint. */
const forkable = (r: ProjectionRow<'runs'>) =>
  r.ordinal !== null &&
  (r.status === 'completed' || ((r.status === 'interrupted' || r.status === 'failed') && !!r.checkpointId));

/** Messages, interrupts and forks of existing threads. */
export function threadRunTools(runtime: Runtime): McpTool[] {
  const store = runtime.store;
  return [
    defineTool({
      name: 'thread_send',
      title: 'Send a message',
      description:
        'Sends a message to a thread: `{ runId, messageId, dispatched }` (`started`, `queued` or `steered`). Optionally moves the thread to another provider or model from this run on.',
      readOnly: false,
      available: ownerOnly,
      input: z
        .object({
          threadId: ThreadId,
          text: z.string().min(1).max(1_000_000),
          mode: SendMode.optional(),
          provider: ProviderKind.optional(),
          model: z.string().min(1).optional(),
          acpAgent: z.string().min(1).max(200).optional(),
          clientRequestId: ClientRequestId.optional(),
        })
        .strict(),
      async run({ threadId, text, mode, provider, model, acpAgent, clientRequestId }, call) {
        const commands = new ToolCommands(runtime, call.scope, 'thread_send', clientRequestId);
        return commands.send('send', 'thread.message.send', {
          threadId,
          text,
          dispatchMode: dispatchModes[mode ?? 'auto'],
          provider,
          model,
          acpAgent,
        });
      },
    }),
    defineTool({
      name: 'thread_interrupt',
      title: 'Interrupt a run',
      description:
        'Interrupts a run of a thread (default: its active run, else its latest). `holdQueue` also keeps its queued runs from starting. A run that has ended already answers `alreadyTerminal: true`.',
      readOnly: false,
      available: ownerOnly,
      input: z
        .object({
          threadId: ThreadId,
          runId: RunId.optional(),
          holdQueue: z.boolean().optional(),
          clientRequestId: ClientRequestId.optional(),
        })
        .strict(),
      async run({ threadId, runId, holdQueue, clientRequestId }, call) {
        const thread = requireThread(store, threadId);
        // A retry finds the run ended (or the next one active): same thread, same command id, so the first answer.
        const target =
          (runId && requireRunOf(store, threadId, runId).id) ??
          thread.activeRunId ??
          store.projections.list('runs', threadId).at(-1)?.id;
        if (!target) throw new BatonError('not_found', `thread ${threadId} has no run to interrupt`);
        const commands = new ToolCommands(runtime, call.scope, 'thread_interrupt', clientRequestId);
        return commands.send('interrupt', 'run.interrupt', { runId: target, holdQueue });
      },
    }),
    defineTool({
      name: 'thread_fork',
      title: 'Fork a thread',
      description:
        'Forks a thread at a finished run (default: its latest one) into a new thread with the history up to it and its own workspace written from that run’s checkpoint: `{ threadId }`. Optionally onto another provider or model.',
      readOnly: false,
      available: ownerOnly,
      input: z
        .object({
          threadId: ThreadId,
          runId: RunId.optional().describe('The finished run to fork at (default: the latest)'),
          title: z.string().max(500).optional(),
          provider: ProviderKind.optional(),
          model: z.string().min(1).optional(),
          acpAgent: z.string().min(1).max(200).optional(),
          cwd: z
            .string()
            .min(1)
            .optional()
            .describe(
              'The fork’s workspace: an absolute path, empty or absent (default: a folder in Baton’s data dir)',
            ),
          clientRequestId: ClientRequestId.optional(),
        })
        .strict(),
      async run({ threadId, runId, clientRequestId, ...options }, call) {
        requireThread(store, threadId);
        const at = runId ?? store.projections.list('runs', threadId).filter(forkable).at(-1)?.id;
        if (!at) throw new BatonError('invalid_transition', `thread ${threadId} has no finished run to fork from`);
        const commands = new ToolCommands(runtime, call.scope, 'thread_fork', clientRequestId);
        return commands.send('fork', 'thread.fork', {
          sourceThreadId: threadId,
          source: { type: 'run', threadId, runId: at },
          ...options,
        });
      },
    }),
  ];
}
