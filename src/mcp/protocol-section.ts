import { pino } from 'pino';
import { Runtime } from '../actors/runtime.js';
import { Store } from '../persistence/store.js';
import { TRANSPORT_MAX_BYTES } from '../server/limits.js';
import { ThreadId } from '../domain/ids.js';
import type { McpScope } from './credentials.js';
import { MCP_PATH } from './http-endpoint.js';
import { orchestratorTools } from './orchestrator.js';

// The "Orchestrator MCP server" section of docs/protocol.md (scripts/write-protocol-doc.ts):
// each tool's description and inputs from its zod schema (as tools/list gives them), and an
// example call, parsed by that schema, with the result it gets.

const ws = '/home/me/project';
const agentScope: McpScope = {
  kind: 'session',
  principal: 'thr_01',
  threadId: ThreadId.parse('thr_01'),
  runtimeMode: 'workspace_write',
  interactionMode: 'default',
};
const thread = {
  threadId: 'thr_01',
  title: 'Parser',
  status: 'active',
  provider: 'codex',
  model: null,
  acpAgent: null,
  runtimeMode: 'workspace_write',
  interactionMode: 'default',
  cwd: ws,
  parentThreadId: null,
  relationshipToParent: null,
  runCount: 1,
  activeRunId: null,
  activeRunStatus: null,
  queuedRunCount: 0,
  queueHeld: false,
  pendingRequestCount: 0,
  updatedAt: 1767225600000,
};
const run = {
  runId: 'run_01',
  ordinal: 1,
  status: 'completed',
  provider: 'codex',
  model: null,
  queuePosition: null,
  error: null,
};

const examples = (
  tools: string[],
): Record<string, { input: Record<string, unknown>; result: Record<string, unknown> }> => ({
  orchestrator_capabilities: {
    input: {},
    result: {
      providers: [
        {
          id: 'codex',
          capabilities: {
            threads: ['canCreateEmptyThread', 'canReadThreadSnapshot', 'canRollbackThread', 'canForkThread', '…'],
            identity: ['nativeThreadIds=strong', 'nativeTurnIds=strong', '…'],
            '…': [],
          },
          agents: [],
        },
        { id: 'claude', capabilities: { '…': [] }, agents: [] },
        {
          id: 'acp',
          capabilities: { '…': [] },
          agents: [
            { name: 'claude-agent-acp', capabilities: { '…': [] } },
            { name: 'codex-acp', capabilities: { '…': [] } },
          ],
        },
      ],
      runtimeModes: ['read_only', 'workspace_write', 'full_access'],
      interactionModes: ['default', 'plan'],
      dispatchModes: ['start_immediately', 'steer_active', 'restart_active', 'queue_after_active', 'auto'],
      tools,
    },
  },
  create_threads: {
    input: {
      threads: [
        { cwd: ws, title: 'Parser' },
        { cwd: ws, title: 'Docs', provider: 'claude', runtimeMode: 'read_only' },
      ],
      clientRequestId: 'plan-7-threads',
    },
    result: {
      threads: [
        { ok: true, threadId: 'thr_01' },
        { ok: true, threadId: 'thr_02' },
      ],
    },
  },
  thread_start: {
    input: {
      cwd: ws,
      title: 'Parser',
      provider: 'codex',
      text: 'Make the tests pass',
      clientRequestId: 'plan-7-start',
    },
    result: { threadId: 'thr_01', runId: 'run_01', messageId: 'msg_01', dispatched: 'started' },
  },
  thread_list: {
    input: { limit: 10 },
    result: { threads: [thread], total: 1 },
  },
  thread_read: {
    input: { threadId: 'thr_01', items: 2 },
    result: {
      thread,
      runs: [run],
      items: [
        { itemId: 'msg_01', runId: 'run_01', kind: 'user_message', status: 'completed', text: 'Make the tests pass' },
        { itemId: 'msg_02', runId: 'run_01', kind: 'assistant_message', status: 'completed', text: 'All tests pass.' },
      ],
      totalItems: 6,
      pendingRequests: [],
    },
  },
  thread_send: {
    input: { threadId: 'thr_01', text: 'Also update the docs', mode: 'queue', clientRequestId: 'plan-7-docs' },
    result: { runId: 'run_02', messageId: 'msg_03', dispatched: 'queued' },
  },
  thread_wait: {
    input: { threadId: 'thr_01', runId: 'run_01', timeoutMs: 30000 },
    result: {
      threadId: 'thr_01',
      done: true,
      timedOut: false,
      run,
      lastAssistantMessage: 'All tests pass.',
      pendingRequests: [],
    },
  },
  thread_interrupt: {
    input: { threadId: 'thr_01', holdQueue: true, clientRequestId: 'plan-7-stop' },
    result: { runId: 'run_02', holdQueue: true },
  },
  thread_fork: {
    input: { threadId: 'thr_01', title: 'Try another fix', clientRequestId: 'plan-7-fork' },
    result: {
      threadId: 'thr_03',
      provider: 'codex',
      cwd: '/home/me/.baton/workspaces/thr_03',
      transferId: 'xfer_01',
      forkedFrom: { threadId: 'thr_01', runId: 'run_01', runOrdinal: 1 },
    },
  },
});

const task = {
  taskId: 'thr_04',
  threadId: 'thr_04',
  parentThreadId: 'thr_01',
  provider: 'claude',
};

/** A finished task, as task_status and task_cancel tell the agent that delegated it (which read its end: no wake-up). */
const finishedTask = {
  ...task,
  status: 'completed',
  done: true,
  run: { ...run, runId: 'run_04', provider: 'claude' },
  result: 'The README now has a Parser section.',
  pendingRequests: [],
  stopped: false,
  wake: { status: 'read', runId: null, reason: 'the parent read its end (task_status)' },
};

/** A wake-up run, as the parent's `thread` snapshot lists it among its runs. */
const wakeRun = {
  id: 'run_05',
  threadId: 'thr_01',
  ordinal: null,
  status: 'queued',
  origin: { kind: 'task_wake', taskId: 'thr_04', taskRunId: 'run_04', status: 'completed' },
};

/** The delegation tools' examples: a task handed to Claude, its status once done, a cancel of a finished one. */
const delegationExamples = {
  delegate_task: {
    input: { task: 'Write the README section on the parser', provider: 'claude', clientRequestId: 'readme-1' },
    result: { ...task, runId: 'run_04' },
  },
  task_status: {
    input: { taskId: 'thr_04' },
    result: finishedTask,
  },
  task_cancel: {
    input: { taskId: 'thr_04', clientRequestId: 'readme-1-cancel' },
    // A finished task is left alone.
    result: { ...finishedTask, cancelled: false },
  },
};

const json = (v: unknown) => '```json\n' + JSON.stringify(v, null, 2) + '\n```';

interface JsonProperty {
  type?: string;
  enum?: unknown[];
  description?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  pattern?: string;
  items?: unknown;
}

/** One input's type as the table shows it: its enum, else its JSON type with its bounds. */
function typeOf(p: JsonProperty): string {
  if (p.enum) return p.enum.map((v) => `\`${String(v)}\``).join(' / ');
  const bounds = [
    p.minimum !== undefined && p.maximum !== undefined ? `${p.minimum}..${p.maximum}` : null,
    p.maxLength !== undefined ? `≤ ${p.maxLength} chars` : null,
    p.pattern ? `\`${p.pattern}\`` : null,
  ].filter(Boolean);
  const type = p.type === 'array' ? 'array of objects (below)' : (p.type ?? 'any');
  return bounds.length ? `${type}, ${bounds.join(', ')}` : type;
}

function inputTable(schema: { properties?: Record<string, JsonProperty>; required?: string[] }): string[] {
  const props = Object.entries(schema.properties ?? {});
  if (props.length === 0) return ['No input.', ''];
  const rows = props.map(
    ([name, p]) =>
      `| \`${name}\` | ${typeOf(p)} | ${schema.required?.includes(name) ? 'yes' : ''} | ${(p.description ?? '').replace(/\|/g, '\\|')} |`,
  );
  return ['| input | type | required | |', '|---|---|---|---|', ...rows, ''];
}

/** The section's lines; throws when a tool has no example or an example fails the tool's schema. */
export function mcpProtocolSection(): string[] {
  const store = Store.open(':memory:');
  try {
    const logger = pino({ level: 'silent' });
    const registry = orchestratorTools(new Runtime({ store, logger }), logger);
    const lines = [
      '## Orchestrator MCP server',
      '',
      `An MCP server (Streamable HTTP, [\`@modelcontextprotocol/sdk\`](https://github.com/modelcontextprotocol/typescript-sdk)) at \`${MCP_PATH}\` on Baton's own port, for agents and MCP hosts to drive Baton with. Every request carries \`Authorization: Bearer <token>\`; Baton's own token (\`BATON_TOKEN\`, the one the Socket.IO handshake takes) has full scope. A missing or wrong token is refused before any MCP processing with \`401\`, \`WWW-Authenticate: Bearer\` and \`{ ok: false, error: { code: "unauthorized", message } }\`; a browser origin that is not allowed gets \`403\`, as at the Socket.IO handshake. The transport is stateless: each POST is authenticated and served on its own (no \`Mcp-Session-Id\`), \`GET\` and \`DELETE\` answer \`405\`. Request bodies up to ${TRANSPORT_MAX_BYTES / (1024 * 1024)} MiB (else \`413\`).`,
      '',
      '```ts',
      "const client = new Client({ name: 'my-host', version: '1.0.0' });",
      `await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:7420${MCP_PATH}'), {`,
      '  requestInit: { headers: { Authorization: `Bearer ${token}` } },',
      '}));',
      "const { structuredContent } = await client.callTool({ name: 'thread_start', arguments: { cwd, text } });",
      '```',
      '',
      "A tool's result is its value as `structuredContent` (and as JSON text in `content`). Every refusal is a tool result with `isError: true` whose `structuredContent` is Baton's typed error `{ code, message, details? }` (the codes of [Commands](#commands)): an input that fails the tool's schema is `invalid_payload` with `details.issues` and changes nothing, an unknown tool is `not_found`, a command Baton refuses carries the command's own error.",
      '',
      "**Retries.** Every mutating tool takes an optional `clientRequestId` (letters, digits, `_ . -`, up to 100). Each command the call sends gets a command id derived from it (`mcp:<caller>:<tool>:<clientRequestId>:<part>`), so a retried call sends the same commands and Baton answers each from its receipt: the first call's result, nothing created or started again. Without one, every call is new.",
      '',
      '```json',
      JSON.stringify(
        {
          isError: true,
          content: [{ type: 'text', text: 'not_found: no thread thr_nope' }],
          structuredContent: { code: 'not_found', message: 'no thread thr_nope' },
        },
        null,
        2,
      ),
      '```',
      '',
      "**Agents' credentials.** Every provider session Baton starts (a Codex process, a Claude query, an ACP agent process) gets Baton's MCP server as its `baton` MCP server, with a credential of its own: a random bearer token minted for that session, kept only as a hash in Baton's memory, and revoked when the session stops (the agent process exits, is released or Baton stops), after which it is a `401` like any unknown token. Codex finds it in its home's `[mcp_servers.baton]` (`url`, `bearer_token_env_var = \"BATON_MCP_TOKEN\"`: the token is in that process's environment only), Claude in the SDK's `mcpServers` (`type: \"http\"`, the `Authorization` header, handed over stdin), an ACP agent that advertises http MCP servers in `session/new`'s `mcpServers` (`type: \"http\"`). Such a credential acts for its session's thread: it sees `orchestrator_capabilities`, `delegate_task`, `task_status`, `task_cancel`, and `thread_read` / `thread_wait` on the threads its thread delegated (any other thread is `not_found`); the other tools are Baton's own token's. Its `clientRequestId`s are its thread's, so a retry by a restarted agent of the same thread is still a retry.",
      '',
      "**Delegation.** `delegate_task` makes a thread a subagent of the delegating thread (`thread.create { parentThreadId }`: lineage `subagent`, the delegating thread's root), in the delegating thread's workspace (the task works on the same files, and the parent sees its changes), and sends it the task as its first message: that run is the task. A child never gets a broader mode than its parent (`read_only` < `workspace_write` < `full_access`; `plan` < `default`), nor than the session asking (the modes it started with): a broader one is `invalid_command` with `details.escalation`, and nothing is created. Its modes default to the parent's. The child's `subagent_spawn` context transfer (source point: the parent's active run) is recorded with it; when the task's run ends the parent records a `subagent_result` transfer (source point: the task's run). Delegated during a run of the parent, the task is a `subagent` node of that run's graph, under its root turn (detail `{ tool: \"delegate_task\", taskId, runId, provider }`), ending as the task's run ends.",
      '',
      "**Wake-ups.** A task whose end has not reached the agent of the thread that delegated it wakes that thread: when its run ends (`completed`, `failed`, `interrupted`...) and no `thread_wait` or `task_status` (or `task_cancel`) of a session of the parent returned that end, Baton queues a run on the parent (dispatch `queue_after_active`: after what the parent is doing) whose message gives the task's id and thread, its run, its status, its error if any and its last message (cut to the parent provider's `maxRecommendedHandoffChars`, the cut said). While an agent of the parent is running (it may still read the end), the wake-up is owed until that run ends. A read with Baton's own token is not the agent's and changes nothing. The run says what it is: `origin: { kind: \"task_wake\", taskId, taskRunId, status }` on its row (the `thread` and `graph` snapshots' `runs`, `run.queued`); a run a message made has no `origin`. The parent keeps each task in the `delegated_tasks` read model (`delegated-task.updated`): `wake` is `awaiting_end`, `owed` (after the run `afterRunId`), `queued` (the run `wakeRunId`), `read`, `declined` (`delegate_task { wake: false }`) or `dropped` (with its `reason`); `task_status` tells it as `wake: { status, runId, reason }`. The decision and the run it queues are one commit of the parent, the same that records the task's end (its `subagent_result`), so a task wakes its parent once, across retries and restarts (an end or a run's end Baton missed while stopped is taken up when it starts). A parent that is archived, deleted or stopped (its queue held) is not woken: the wake-up is dropped.",
      '',
      json(wakeRun),
      '',
      "**Stop cascade.** `thread.stop` and `run.interrupt { holdQueue: true }` (the Stop button) on a thread drop, in the same commit, every wake-up its tasks still owe it (those running, those ended and owed) and cancel the wake-up runs still queued (a wake-up run already going is the active run the Stop interrupts), so when the stopped tasks end nothing restarts the thread. On a thread that delegated tasks they also queue a `delegated-tasks.stop` effect after commit. Its handler sends `thread.stop` to every delegated thread under it that is still working (its queue not held, and a run active or queued, or work of its agent's that outlives its runs: a Claude background helper still open, an ask of one waiting, a turn of the agent's own not ended), children of children first, each with a command id derived from the effect (a retried effect changes nothing). A thread that has finished is left alone. Each stopped child with tasks of its own cascades in turn and finds them stopped already. `task_cancel` drops its task's wake-up the same way, and stops a task whose run has ended while its agent's background work goes on.",
      "**Background work of a task.** A task ends with its run (its `subagent_result`, its wake-up, `task_status { done: true }`), even when its agent works on in the background after it (a Claude child's background helper, measured: its turn ends while the helper works, and the helper's end makes the agent run a turn of its own, a run of the task's thread with `origin: agent_turn`). Then `task_status` (and `thread_wait`) says so: `backgroundWork: { subagents, requests, ownTurns }` (the helpers still open, their asks waiting after their run, the own turns not ended; absent when there is none), and the wake-up's message has a `background:` line. `thread_wait` on the task's thread with no `runId` waits for that work too (and its own turns); what the helper finds is in the own turn's reply (`lastAssistantMessage`). A Stop of the parent or `task_cancel` stops it.",
      '',
    ];
    for (const name of registry.names()) {
      const { tool, listed } = registry.get(name)!;
      const example = { ...examples(registry.names()), ...delegationExamples }[name];
      if (!example) throw new Error(`the MCP tool ${name} has no example in src/mcp/protocol-section.ts`);
      tool.input.parse(example.input);
      const schema = listed.inputSchema as Parameters<typeof inputTable>[0];
      const nested = Object.values(schema.properties ?? {}).find((p) => p.type === 'array')?.items;
      lines.push(
        `### \`${name}\``,
        '',
        tool.description,
        '',
        `Who may call it: ${tool.available && !tool.available(agentScope) ? 'Baton’s own token' : 'Baton’s own token, and an agent’s credential'}.`,
        '',
        ...inputTable(schema),
        ...(nested ? ['Each item:', '', ...inputTable(nested as Parameters<typeof inputTable>[0])] : []),
        'Call (`arguments`):',
        '',
        json(example.input),
        '',
        'Result (`structuredContent`):',
        '',
        json(example.result),
        '',
      );
    }
    return lines;
  } finally {
    store.close();
  }
}
