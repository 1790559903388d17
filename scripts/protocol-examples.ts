import type { CommandType } from '../src/domain/commands.js';

/**
 * One example per command of the Socket.IO contract, for docs/protocol.md. A test parses
 * every example with the command schema, so the documentation cannot drift from it.
 */
export const commandExamples: Record<
  CommandType,
  { example: Record<string, unknown>; result: Record<string, unknown>; notes: string }
> = {
  'thread.create': {
    example: {
      commandId: 'cmd_1',
      type: 'thread.create',
      cwd: '/home/me/project',
      title: 'Fix the parser',
      provider: 'codex',
      runtimeMode: 'workspace_write',
    },
    result: { threadId: 'thr_01' },
    notes:
      "Creates an AppThread. No provider work happens until the first message. `threadId` may be given by the client. `provider` must be one this Baton runs (`codex`; `claude`: the Claude agent through the Agent SDK, described in `docs/claude.md`; `acp`: any Agent Client Protocol agent, refused `unsupported` in a Baton without the ACP provider). `acpAgent` names the ACP agent a thread with provider `acp` runs: required with it (`invalid_command` without), refused `invalid_command` on any other provider, and one of the agents the ACP provider runs, the built-in `claude-agent-acp` and `codex-acp` or one registered at start-up with `BATON_ACP_AGENTS` (JSON: name -> `{ command, args?, env? }`, a name there replacing a built-in); any other name is refused `invalid_payload`, naming the known ones in the message and in `details.known`, and nothing is stored. It is on the thread's row and on every turn the ACP provider is asked for. `runtimeMode` (default `workspace_write`), `model` (default: the endpoint's) and `interactionMode` (default `default`; `plan` is plan mode) are applied on every turn. Codex: `read_only` = read-only sandbox, approvals on request; `workspace_write` = the thread's cwd (and the system temp dirs) writable, approvals on request; `full_access` = no sandbox, no approvals; `plan` = its plan collaboration mode. Claude: `read_only` = file-writing tools denied, commands asked; `workspace_write` = file edits inside the cwd without asking (outside it asked), commands asked; `full_access` = no approvals (`bypassPermissions`); `plan` = the agent's plan mode, whose plan becomes a proposed plan. On Claude, a question's answers are keyed by the question text (the agent gives its questions no ids), subagents are nodes with no provider thread of their own, and steering is by interrupt and restart. `parentThreadId` makes the thread a delegated task of that thread (what the MCP tool `delegate_task` sends): lineage `subagent` in the parent's tree, its modes defaulting to the parent's, a broader `runtimeMode` (`read_only` < `workspace_write` < `full_access`) or `interactionMode` (`plan` < `default`) refused `invalid_command` with `details.escalation`, an unknown parent `not_found`, nothing stored; a `subagent_spawn` context transfer from the parent's active run is recorded with it.",
  },
  'thread.message.send': {
    example: {
      commandId: 'cmd_2',
      type: 'thread.message.send',
      threadId: 'thr_01',
      text: 'Make the tests pass',
      dispatchMode: 'auto',
    },
    result: { runId: 'run_01', messageId: 'msg_01', dispatched: 'started' },
    notes:
      "`dispatched` is `started`, `queued` or `steered`. Modes: `start_immediately` (refused while a run is active), `steer_active` and `auto` (steer natively when the provider can, else interrupt and restart the active run with a `steering_restart` attempt; `auto` queues when neither is possible), `restart_active`, `queue_after_active`. `targetRunId` (only with `steer_active` / `restart_active`, else `invalid_command`) names the run to steer: if it is not the active run, or is finalizing, the message is refused with `conflict` and nothing happens. `model` is this run's model (the thread's when omitted). `provider` naming another provider (with `acpAgent` for `acp`, checked as at `thread.create`) switches the thread to it from this message's run on, as `thread.settings.update { provider }` does (`model` is then the new provider's model for the thread; without it, the provider's default); while a run is active the message is queued (`steer_active` / `restart_active` are refused `invalid_command`: the active run stays on its provider). `acpAgent` on a thread of another provider without `provider: \"acp\"`, and `cleanContext` without a switch, are refused `invalid_command`; on an ACP thread, another `acpAgent` is a switch of agent (each agent's sessions are its own), handed over like a switch of provider.",
  },
  'run.interrupt': {
    example: { commandId: 'cmd_3', type: 'run.interrupt', runId: 'run_01', holdQueue: true },
    result: { runId: 'run_01', holdQueue: true },
    notes:
      'Asks the provider to stop. The ack is not the end: the run ends when the provider confirms (`run.terminal`). `holdQueue` (the Stop button) keeps queued runs from starting, and stops the threads this thread delegated, as `thread.stop` does.',
  },
  'thread.stop': {
    example: { commandId: 'cmd_4', type: 'thread.stop', threadId: 'thr_01' },
    result: { threadId: 'thr_01', queueHeld: true },
    notes:
      'Interrupts the active run and holds the queue; nothing restarts the thread until the user sends a message. A thread that delegated tasks (`thread.create { parentThreadId }`) queues a `delegated-tasks.stop` effect in the same commit: after commit every delegated thread under it that is still working gets `thread.stop` too, children of children first; a finished one is left alone (see [Orchestrator MCP server](#orchestrator-mcp-server)).',
  },
  'runtime-request.respond': {
    example: { commandId: 'cmd_5', type: 'runtime-request.respond', requestId: 'req_01', decision: 'accept' },
    result: { requestId: 'req_01', status: 'answering' },
    notes:
      "`decision` is `accept`, `acceptForSession`, `decline` or `cancel`; questions (`kind: user_input`) take `answers: { [questionId]: string | string[] }`, or the decision `decline` or `cancel` to answer none (an approval with `answers`, questions with both or with `accept`, are `invalid_command`). Answers are checked against the questions asked (the request node's `questions` artifact) and refused `invalid_payload` when they do not fit: an id no question has, a `required` question left open, several answers where `multiple` is false, a choice that is not an option where `isOther` is false, an answer that is not the number `answerType` asks for. A request whose provider callback is gone fails with `not_resumable`. The answer is `answering` until the provider takes it: then `runtime-request.resolved`, or `runtime-request.cancelled` with the reason.",
  },
  'queued-run.reorder': {
    example: { commandId: 'cmd_6', type: 'queued-run.reorder', threadId: 'thr_01', order: ['run_03', 'run_02'] },
    result: { order: ['run_03', 'run_02'] },
    notes: '`order` must hold exactly the queued runs.',
  },
  'queued-run.cancel': {
    example: { commandId: 'cmd_7', type: 'queued-run.cancel', runId: 'run_03' },
    result: { runId: 'run_03', status: 'cancelled' },
    notes: 'Cancels a queued run; it never gets an ordinal.',
  },
  'queued-message.promote': {
    example: { commandId: 'cmd_8', type: 'queued-message.promote', runId: 'run_03' },
    result: { runId: 'run_01', promotedRunId: 'run_03' },
    notes: 'Turns a queued message into a steer of the active run (the queued run is cancelled).',
  },
  'thread.fork': {
    example: {
      commandId: 'cmd_9',
      type: 'thread.fork',
      sourceThreadId: 'thr_01',
      source: { type: 'run', threadId: 'thr_01', runId: 'run_01' },
    },
    result: {
      threadId: 'thr_02',
      provider: 'codex',
      cwd: '/home/me/.baton/workspaces/thr_02',
      forkedFrom: { threadId: 'thr_01', runId: 'run_01', runOrdinal: 1 },
    },
    notes:
      "Records lineage and a pending source point only; the fork's first run resolves it (`thread.fork-resolved`): a native provider fork at that turn when the fork's provider declares `threads.canForkThread` and `canForkFromTurn` and the source run was its own, else a portable fork, lower fidelity: a fresh provider thread whose first prompt carries Baton's own account of the source's runs up to the fork point and nothing after (recorded as `context.seeded` with `fromThreadId`). `provider` (with `acpAgent` for `acp`; same checks as `thread.create`) puts the fork on another provider, always portably, on that provider's default model unless `model` names one. Each source resolves to a fork point, a finished run of `sourceThreadId` (a completed run, or an interrupted or failed one with its checkpoint): `run` that run; `node` the run the node belongs to (a node inside a subagent: `unsupported`; an ended subagent's own node, where the fork's provider declares `threads.canForkFromSubagentThread` and the fork stays on it, forks the child's native thread at its last turn, so the fork goes on from the child's conversation: else `unsupported`, a child still running `invalid_transition`); `checkpoint` the run it ends (it must be `ready`, else `not_found`; a subagent's checkpoint or the baseline before the first run: `unsupported`), its files being the fork's workspace; `provider_thread { threadId, providerThreadId, providerTurnId? }` the run whose attempt ran that native turn, else the last finished run on that provider thread. A point whose run still runs (or was rolled back) is refused `invalid_transition`; an unknown id, or one of another thread, `not_found`; nothing is stored. The fork's `thread.forked` (in its creation commit) records the point as `thread.lineage.forkedFrom` `{ threadId, runId, runOrdinal, nodeId, checkpointId }` (null on other threads), and the fork's snapshot `visibleTurnItems` starts with the source's conversation up to and including that run, each item `inherited: true` (for a fork of a fork, its source's inherited items first); `turnItems` stays the fork's own. The fork gets its own workspace (`cwd` in the result), written from the fork point's checkpoint before the fork's first run starts (a checkpoint that is not `ready` refuses the fork `not_found`), so its edits and rollbacks never touch the source's files: a new folder `<dataDir>/workspaces/<forkThreadId>`, or `cwd` when the command names one (an absolute path to a folder that is empty or absent, apart from the source's workspace; anything else `invalid_payload`, nothing stored). Ignored files and files over the capture size limit were never in the checkpoint, so the fork does not have them.",
  },
  'thread.merge_back': {
    example: { commandId: 'cmd_10', type: 'thread.merge_back', threadId: 'thr_01', fromThreadId: 'thr_02' },
    result: { threadId: 'thr_01', fromThreadId: 'thr_02', transferId: 'xfer_01', throughRunOrdinal: 2 },
    notes:
      "Tells a fork's own work back to this thread (the fork's parent): a `merge_back` context transfer is recorded now (`context-transfer.recorded`, base point the fork point, source point the fork's latest finished run) and materialized when this thread's next run starts, as a handoff before that run's message (`context.seeded` with the fork as `fromThreadId`), consumed by that run. `thread.message.send { mergeBackFromThreadId }` does both in one command. `fromThreadId` must be a fork of `threadId`. Refused: a thread that is not a fork of this one (`invalid_command`), a fork with a run going (`invalid_transition`), a fork with no finished run of its own (`invalid_command`). With `files: true` the fork's file changes since the fork point (its fork point's checkpoint to its latest finished run's) are also applied to this thread's workspace, three-way through git in Baton's shadow repositories (the workspace's own .git and index are never touched), before the step: a file changed on both sides in different places merges; the step records the transfer and a checkpoint of the workspace after the merge (`checkpoint.recorded`, `scopeKind: manual`, `runOrdinal` the next run's), so `rollback.toRun` to this thread's last run restores the files as they were before it; the result adds `checkpointId` and `changedPaths`. Refused with files, nothing stored and no file written: the same lines changed on both sides, a file changed on one side and deleted on the other, or a change or untracked file in the way (`conflict`, `details.paths` the files involved); this thread with a run going or archived (`invalid_transition`); the fork point, the fork's latest run or this thread's last run without a ready checkpoint (`not_found`); a workspace that can no longer be used (`conflict`); a fork working in this thread's own workspace (`invalid_command`); a Baton that keeps no checkpoints (`unsupported`).",
  },
  'rollback.toRun': {
    example: { commandId: 'cmd_11', type: 'rollback.toRun', threadId: 'thr_01', runOrdinal: 2 },
    result: {
      threadId: 'thr_01',
      runOrdinal: 2,
      checkpointId: 'ckpt_02',
      changedPaths: ['src/parser.ts'],
      staleCheckpointIds: ['ckpt_03'],
    },
    notes:
      "Restores the files of run 2's checkpoint, marks later runs `rolled_back` and later checkpoints `stale`, and asks the provider to roll back its conversation. The next run is run 3.",
  },
  'rollback.node': {
    example: { commandId: 'cmd_12', type: 'rollback.node', nodeId: 'node_07', checkpointId: 'ckpt_09' },
    result: {
      nodeId: 'node_07',
      checkpointId: 'ckpt_09',
      changedPaths: ['a.txt'],
      parentFilesChanged: true,
      parentOverlap: ['a.txt'],
      conversation: 'not_supported',
      laterChildNodeIds: ['node_11'],
    },
    notes:
      "Restores a child scope (a subagent's checkpoint); `parentOverlap` lists restored files the parent run changed too. `conversation` says what became of the child's own conversation: `nothing_to_drop` (the node's turn is its child thread's last), `not_supported` (a Codex child asked again by its parent, each later turn a later subagent node on the same native thread, listed in `laterChildNodeIds`, oldest first: the child's thread keeps them, because no provider can roll a subagent's thread back, `subagents.canRollbackSubagentThread`; a `runtime.warning` on the node's run says so too, and a `thread.fork` from the node goes on from its turn without them), or null (no child thread is bound to the node: a tool's scope, a Claude subagent, a delegated task, which is a thread of its own for `rollback.toRun`). Nothing is asked of the provider either way.",
  },
  'thread.settings.update': {
    example: {
      commandId: 'cmd_13',
      type: 'thread.settings.update',
      threadId: 'thr_01',
      title: 'Parser work',
      interactionMode: 'plan',
    },
    result: { threadId: 'thr_01' },
    notes:
      "Changes apply from the next run on (a queued run takes the settings as they are when it starts; the active run keeps its own): `runtimeMode`, `model` and `interactionMode` are sent to the provider on every turn, so they reach a provider thread that already exists. `provider` naming another provider is a switch (with `acpAgent` for `acp`; `model` resets to the new provider's default unless given): the next run that starts runs on the new provider's thread, and its first prompt carries a handoff, Baton's account of the runs that thread lacks (`context.seeded`, strategy `full` for a new provider thread, `delta` with only the runs since it last took part when the thread returns to a provider it ran on before, whose native thread is resumed). `cleanContext: true` makes the target start a new provider thread told every run. A rollback makes a parked provider thread that holds a rolled-back run start afresh. A provider this Baton does not run: `unsupported`. `acpAgent` alone (threads with provider `acp` only, else `invalid_command`; an unknown name `invalid_payload`) switches the ACP agent from the next run on, as a switch of provider does: another agent cannot take up a session of the first, so the next run goes to that agent's own provider thread (its earlier one, told only the runs since it last took part, or a new one told them all; `cleanContext` starts it afresh), and the supervisor dispatches by that agent's flags from then on.",
  },
  'plan.implement': {
    example: { commandId: 'cmd_16', type: 'plan.implement', planId: 'plan_01' },
    result: {
      runId: 'run_04',
      messageId: 'msg_04',
      dispatched: 'started',
      interactionMode: 'default',
      leftPlanMode: true,
    },
    notes:
      'Implements a proposed plan (a row of the thread snapshot\'s `plans` with kind `proposed_plan`, once `final`) in a new run of the plan\'s thread, or of a fork of it (or of a fork of that) named by `threadId` (to implement it in a new thread: `thread.fork` at the plan\'s run, then this). A thread in plan mode leaves it first (its `interactionMode` becomes `default`, as `thread.settings.update` would, and stays so: `leftPlanMode`); the run\'s message is the plan in full ("Implement this plan:" and its text), so it needs nothing said before; its origin is `{ kind: "plan_implementation", planId }` (on `run.created` and the run\'s row). It queues behind a run still going (`dispatched: "queued"`) and never steers it. Refused, nothing stored: an unknown plan (`not_found`), a todo list or questions (`invalid_command`), a plan still being written (`invalid_transition`), a thread that is neither the plan\'s nor a fork of it (`invalid_command`).',
  },
  'thread.archive': {
    example: { commandId: 'cmd_14', type: 'thread.archive', threadId: 'thr_01' },
    result: { threadId: 'thr_01', status: 'archived' },
    notes: 'Only an idle thread can be archived.',
  },
  'thread.delete': {
    example: { commandId: 'cmd_15', type: 'thread.delete', threadId: 'thr_01' },
    result: { threadId: 'thr_01', status: 'deleted' },
    notes: 'Marks the thread deleted; its history stays in the event log.',
  },
};
