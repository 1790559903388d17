import { z } from 'zod';
import type { Runtime } from '../actors/runtime.js';
import { capabilityGroups, type ProviderCapabilities } from '../domain/capabilities.js';
import { ThreadId } from '../domain/ids.js';
import type { ProjectionRow } from '../domain/projections.js';
import { DispatchMode, InteractionMode, RuntimeMode } from '../domain/statuses.js';
import { streamSnapshot } from '../server/streams.js';
import type { McpScope } from './credentials.js';
import { defineTool, type McpTool } from './tool-registry.js';
import {
  itemView,
  ownerOnly,
  pendingRequests,
  requireVisibleThread,
  runSummary,
  threadSummary,
} from './thread-views.js';

/** Per group, the flags that hold and the values that are not flags (`nativeThreadIds=strong`). */
function summarize(c: ProviderCapabilities): Record<string, string[]> {
  const groups: Record<string, string[]> = {};
  for (const group of capabilityGroups)
    groups[group] = Object.entries(c[group]).flatMap(([flag, value]) =>
      value === true ? [flag] : value === false ? [] : [`${flag}=${String(value)}`],
    );
  return groups;
}

/** What an agent reads before it orchestrates: the providers, the threads, one thread's state. */
export function readTools(runtime: Runtime, toolNames: (scope: McpScope) => string[]): McpTool[] {
  const store = runtime.store;
  return [
    defineTool({
      name: 'orchestrator_capabilities',
      title: 'What this Baton can run',
      description:
        'The providers this Baton runs (codex, claude, acp), what each declares it can do (per group, the capability flags that hold; `detail: "full"` for the whole declaration), the ACP agents a thread can name, the modes threads take, and the tools here.',
      readOnly: true,
      input: z.object({ detail: z.enum(['summary', 'full']).optional() }).strict(),
      async run({ detail }, call) {
        const declared = (c: ProviderCapabilities) => (detail === 'full' ? c : summarize(c));
        const providers = runtime.providers.ids().map((id) => ({
          id,
          capabilities: declared(runtime.providers.capabilities(id)),
          agents: runtime.providers
            .agents(id)
            .map((name) => ({ name, capabilities: declared(runtime.providers.capabilities(id, name)) })),
        }));
        return {
          providers,
          runtimeModes: RuntimeMode.options,
          interactionModes: InteractionMode.options,
          dispatchModes: DispatchMode.options,
          tools: toolNames(call.scope),
        };
      },
    }),
    defineTool({
      name: 'thread_list',
      title: 'List threads',
      description: 'Baton’s threads, the most recently updated first, each with its settings and run state.',
      readOnly: true,
      available: ownerOnly,
      input: z
        .object({
          status: z.enum(['active', 'archived', 'all']).optional().describe('Default: active'),
          limit: z.number().int().min(1).max(500).optional().describe('Default: 50'),
        })
        .strict(),
      async run({ status = 'active', limit = 50 }) {
        const threads = store.projections
          .list('threads')
          .filter((t) => t.status !== 'deleted' && (status === 'all' || t.status === status))
          .sort((a, b) => b.updatedAt - a.updatedAt);
        return { threads: threads.slice(0, limit).map(threadSummary), total: threads.length };
      },
    }),
    defineTool({
      name: 'thread_read',
      title: 'Read a thread',
      description:
        'A thread as it stands: its settings and run state, its latest runs, the most recent items of its conversation (messages, tool calls, plans; long texts cut) and the requests waiting for an answer.',
      readOnly: true,
      input: z
        .object({
          threadId: ThreadId,
          items: z.number().int().min(1).max(200).optional().describe('How many recent items (default 20)'),
          runs: z.number().int().min(1).max(100).optional().describe('How many recent runs (default 10)'),
          maxTextChars: z.number().int().min(100).max(100_000).optional().describe('Per item (default 4000)'),
        })
        .strict(),
      async run({ threadId, items = 20, runs = 10, maxTextChars = 4_000 }, call) {
        const thread = requireVisibleThread(store, call.scope, threadId);
        // The conversation as it stands: rolled-back runs' items out, a fork's inherited history in.
        const snapshot = streamSnapshot(store, { stream: 'thread', threadId }) as {
          runs: ProjectionRow<'runs'>[];
          visibleTurnItems: ProjectionRow<'turn_items'>[];
        };
        const visible = snapshot.visibleTurnItems;
        return {
          thread: threadSummary(thread),
          runs: snapshot.runs.slice(-runs).map(runSummary),
          items: visible.slice(-items).map((i) => itemView(i, maxTextChars)),
          totalItems: visible.length,
          pendingRequests: pendingRequests(store, threadId),
        };
      },
    }),
  ];
}
