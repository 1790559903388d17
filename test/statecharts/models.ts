import { expect } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import type { EntityKind } from '../../src/domain/entities.js';
import type { MachineOutput } from '../../src/machines/outputs.js';
import { runMachine, type RunContext } from '../../src/machines/run.machine.js';
import { runAttemptMachine } from '../../src/machines/run-attempt.machine.js';
import { executionNodeMachine } from '../../src/machines/execution-node.machine.js';
import { providerSessionMachine } from '../../src/machines/provider-session.machine.js';
import { providerThreadMachine } from '../../src/machines/provider-thread.machine.js';
import { runtimeRequestMachine } from '../../src/machines/runtime-request.machine.js';
import { threadSupervisorMachine, type ThreadSupervisorContext } from '../../src/machines/thread-supervisor.machine.js';

type Snap = { value: unknown; context: any; status: string; hasTag(t: string): boolean };
type Ev = { type: string; [k: string]: unknown };

export interface StepRecord {
  event: Ev;
  before: Snap;
  after: Snap;
  /** Outputs emitted by this step alone. */
  outputs: MachineOutput[];
}

/**
 * What the model-based tests know of each machine: its input, the events to explore (as
 * a function of the state, so ids stay consistent), an abstract state serializer that
 * keeps context from exploding the graph, and the invariants checked after every step.
 */
export interface MachineModel {
  name: string;
  kind: EntityKind;
  machine: AnyStateMachine;
  input: Record<string, unknown>;
  events: (state: Snap) => Ev[];
  /** Fine abstraction for shortest paths (every reachable abstract state). */
  serialize: (state: Snap) => string;
  /** Coarse abstraction for simple paths to final/terminal states (keeps their number finite). */
  serializeCoarse: (state: Snap) => string;
  invariant: (history: StepRecord[]) => void;
}

const domainTypes = (outputs: MachineOutput[]) => outputs.flatMap((o) => (o.type === 'domain' ? [o.event.type] : []));
const err = { code: 'provider_error', message: 'provider went away' };

/** Every machine keeps `context.status` equal to what its state says. */
function statusMatchesState(step: StepRecord, statusOf: (s: Snap) => string | null): void {
  const expected = statusOf(step.after);
  if (expected) expect(step.after.context.status, `after ${step.event.type}`).toBe(expected);
}

const leafName = (value: unknown): string => (typeof value === 'string' ? value : leafName(Object.values(value as object)[0]));

const run: MachineModel = {
  name: 'run',
  kind: 'run',
  machine: runMachine,
  input: { runId: 'run_1', threadId: 'thr_1', provider: 'codex', model: null, userMessageId: 'msg_1', rootNodeId: 'node_1', firstAttemptId: 'att_1', text: 'hi' },
  events: (s) => {
    const c = s.context as RunContext;
    const att = c.activeAttemptId ?? 'att_1';
    return [
      { type: 'START', ordinal: 1, providerThreadId: 'pthr_1', reason: 'initial', settings: { runtimeMode: 'workspace_write', interactionMode: 'default' } },
      { type: 'TURN_STARTED', attemptId: att },
      ...(['completed', 'interrupted', 'failed'] as const).map((status) => ({ type: 'TURN_TERMINAL', attemptId: att, nodeId: c.rootNodeId, status })),
      { type: 'TURN_TERMINAL', attemptId: att, nodeId: 'node_child', status: 'completed' },
      { type: 'TURN_TERMINAL', attemptId: 'att_stale', nodeId: 'node_1', status: 'completed' },
      { type: 'REQUEST_OPENED', requestId: 'req_1' },
      { type: 'REQUEST_CLOSED', requestId: 'req_1' },
      { type: 'INTERRUPT', holdQueue: false, supportsInterrupt: true },
      { type: 'INTERRUPT', holdQueue: true, supportsInterrupt: false },
      { type: 'INTERRUPT_ACKNOWLEDGED' },
      { type: 'STEER_NATIVE', messageId: 'msg_2', text: 'more' },
      { type: 'STEER_RESTART', messageId: 'msg_3', text: 'redo', attemptId: 'att_2', rootNodeId: 'node_2' },
      { type: 'PROVIDER_LOST', status: 'failed', error: err },
      ...(['flush_text', 'close_messages', 'finalize_plans', 'close_children'] as const).map((step) => ({ type: 'BARRIER_STEP_DONE', step })),
      { type: 'CHECKPOINT_RECORDED', checkpointId: 'ckpt_1', status: 'ready' },
      { type: 'CANCEL', reason: 'user' },
      { type: 'ROLLED_BACK' },
    ];
  },
  serialize: (s) => JSON.stringify([s.value, s.context.interruptRequested, !!s.context.pendingRestart, s.context.pendingRequestIds.length, s.context.terminalStatus, s.context.activeAttemptId]),
  serializeCoarse: (s) => JSON.stringify([s.value, s.context.terminalStatus]),
  invariant: (history) => {
    const step = history.at(-1)!;
    const all = history.flatMap((h) => domainTypes(h.outputs));
    const terminalEvents = all.filter((t) => t === 'run.terminal').length;
    expect(terminalEvents).toBeLessThanOrEqual(1);
    // Root-only completion: a child's or a stale attempt's turn changes nothing.
    if (step.event.type === 'TURN_TERMINAL' && (step.event.nodeId !== step.before.context.rootNodeId || step.event.attemptId !== step.before.context.activeAttemptId)) {
      expect(step.after.value).toEqual(step.before.value);
      expect(step.outputs).toEqual([]);
    }
    // An acknowledgement is never an end.
    if (step.event.type === 'INTERRUPT_ACKNOWLEDGED') {
      expect(step.after.value).toEqual(step.before.value);
      expect(domainTypes(step.outputs)).not.toContain('run.terminal');
    }
    // A supported interrupt only asks: the run stays where it was until the provider ends it.
    if (step.event.type === 'INTERRUPT' && step.event.supportsInterrupt && JSON.stringify(step.before.value) !== '"queued"') {
      expect(domainTypes(step.outputs)).not.toContain('run.terminal');
    }
    // The barrier: a started run ends only after every step, in order, then the checkpoint.
    if (domainTypes(step.outputs).includes('run.terminal') && history.some((h) => h.event.type === 'START')) {
      const steps = history.flatMap((h) => h.outputs).flatMap((o) => (o.type === 'domain' && o.event.type === 'run.barrier-step' ? [(o.event.payload as { step: string }).step] : []));
      expect(steps).toEqual(['flush_text', 'close_messages', 'finalize_plans', 'close_children', 'checkpoint']);
    }
    // Leaving `live` cancels the run's waiting provider work, once, in the same step.
    const leftLive = JSON.stringify(step.before.value).includes('live') && !JSON.stringify(step.after.value).includes('live');
    const cancels = step.outputs.filter((o) => o.type === 'cancel_effects');
    expect(cancels).toHaveLength(leftLive ? 1 : 0);
    const leaf = leafName(step.after.value);
    const byLeaf: Record<string, string> = { queued: 'queued', starting: 'starting', working: 'running', waiting: 'waiting', completed: 'completed', interrupted: 'interrupted', failed: 'failed', cancelled: 'cancelled', rolled_back: 'rolled_back' };
    statusMatchesState(step, () => (leaf in byLeaf ? byLeaf[leaf]! : null));
  },
};

const simpleStatus = (s: Snap) => {
  const leaf = leafName(s.value);
  return leaf === 'ended' ? null : leaf;
};

const runAttempt: MachineModel = {
  name: 'run-attempt',
  kind: 'run_attempt',
  machine: runAttemptMachine,
  input: { attemptId: 'att_1', runId: 'run_1', threadId: 'thr_1', attemptOrdinal: 1, rootNodeId: 'node_1', reason: 'initial', providerThreadId: null },
  events: () => [
    { type: 'TURN_STARTED', attemptId: 'att_1' },
    { type: 'TURN_STARTED', attemptId: 'att_9' },
    ...(['completed', 'interrupted', 'failed'] as const).map((status) => ({ type: 'TURN_TERMINAL', attemptId: 'att_1', nodeId: 'node_1', status })),
    { type: 'TURN_TERMINAL', attemptId: 'att_1', nodeId: 'node_child', status: 'completed' },
    { type: 'END', status: 'interrupted' },
    { type: 'SUPERSEDE' },
    { type: 'CANCEL' },
  ],
  serialize: (s) => JSON.stringify(s.value),
  serializeCoarse: (s) => JSON.stringify(s.value),
  invariant: (history) => {
    const step = history.at(-1)!;
    if (step.event.type === 'TURN_TERMINAL' && step.event.nodeId !== 'node_1') expect(step.after.value).toEqual(step.before.value);
    statusMatchesState(step, simpleStatus);
  },
};

const executionNode: MachineModel = {
  name: 'execution-node',
  kind: 'execution_node',
  machine: executionNodeMachine,
  input: { nodeId: 'node_1', runId: 'run_1', threadId: 'thr_1', attemptId: 'att_1', parentNodeId: null, kind: 'tool_call', countsForRun: false, title: 'ls' },
  events: () => [
    { type: 'START' }, { type: 'WAIT' }, { type: 'RESUME' },
    ...(['completed', 'interrupted', 'failed', 'cancelled'] as const).map((status) => ({ type: 'END', status })),
    { type: 'CLOSE', status: 'interrupted' },
    { type: 'ROLLED_BACK' },
  ],
  serialize: (s) => JSON.stringify(s.value),
  serializeCoarse: (s) => JSON.stringify(s.value),
  invariant: (history) => statusMatchesState(history.at(-1)!, simpleStatus),
};

const providerSession: MachineModel = {
  name: 'provider-session',
  kind: 'provider_session',
  machine: providerSessionMachine,
  input: { sessionId: 'psess_1', threadId: 'thr_1', provider: 'codex' },
  events: () => [{ type: 'READY' }, { type: 'BUSY' }, { type: 'WAITING' }, { type: 'IDLE' }, { type: 'STOPPED', reason: 'reaped' }, { type: 'FAILED', reason: 'crash' }, { type: 'RESTART' }],
  serialize: (s) => JSON.stringify([s.value, s.context.reason]),
  serializeCoarse: (s) => JSON.stringify(s.value),
  invariant: (history) => statusMatchesState(history.at(-1)!, (s) => leafName(s.value)),
};

const providerThread: MachineModel = {
  name: 'provider-thread',
  kind: 'provider_thread',
  machine: providerThreadMachine,
  input: { providerThreadId: 'pthr_1', threadId: 'thr_1', provider: 'codex', forkedFrom: null },
  events: () => [
    { type: 'LOADED', nativeThreadRef: 'native-1', resumeCursor: null }, { type: 'TURN_BEGAN', runOrdinal: 1 }, { type: 'TURN_ENDED' },
    { type: 'UNLOADED', reason: 'session stopped' }, { type: 'FAILED', reason: 'resume failed' }, { type: 'ARCHIVE' }, { type: 'CLOSE' },
  ],
  serialize: (s) => JSON.stringify([s.value, s.context.nativeThreadRef]),
  serializeCoarse: (s) => JSON.stringify(s.value),
  invariant: (history) => {
    const step = history.at(-1)!;
    statusMatchesState(step, (s) => leafName(s.value));
    // The native handle, once bound, survives unloading: resume needs it.
    if (history.some((h) => h.event.type === 'LOADED')) expect(step.after.context.nativeThreadRef).toBe('native-1');
  },
};

const runtimeRequest: MachineModel = {
  name: 'runtime-request',
  kind: 'runtime_request',
  machine: runtimeRequestMachine,
  input: { requestId: 'req_1', threadId: 'thr_1', runId: 'run_1', nodeId: 'node_r', kind: 'command', prompt: 'run ls?', details: {}, providerSessionId: 'psess_1', expiresAt: 60_000 },
  events: () => [
    { type: 'RESPOND', decision: 'accept', answers: null },
    { type: 'ANSWER_DELIVERED' },
    { type: 'ANSWER_FAILED', reason: 'callback gone' },
    { type: 'CALLBACK_LOST', reason: 'baton restarted' },
    { type: 'EXPIRE', reason: 'timeout' },
    { type: 'CANCEL', reason: 'turn ended' },
  ],
  serialize: (s) => JSON.stringify(s.value),
  serializeCoarse: (s) => JSON.stringify(s.value),
  invariant: (history) => {
    const step = history.at(-1)!;
    const effects = step.outputs.filter((o) => o.type === 'effect');
    // A request whose callback is gone never sends a response to the provider.
    if (step.before.context.notResumableReason !== null) expect(effects).toEqual([]);
    // Resolved only once the provider took the answer; an answer it could not take cancels.
    if (step.after.value === 'resolved') expect(step.event.type).toBe('ANSWER_DELIVERED');
    if (step.event.type === 'ANSWER_FAILED' && step.before.value === 'answering') expect(step.after.value).toBe('cancelled');
    // Every end but `resolved` says why.
    const ended = domainTypes(step.outputs).filter((t) => t === 'runtime-request.cancelled' || t === 'runtime-request.expired');
    if (['cancelled', 'expired'].includes(String(step.after.value)) && step.before.value !== step.after.value) expect(ended).toHaveLength(1);
    expect(step.after.context.status).toBe(step.after.value);
  },
};

let freshRun = 0;
const supervisor: MachineModel = {
  name: 'thread-supervisor',
  kind: 'thread_supervisor',
  machine: threadSupervisorMachine,
  input: {
    threadId: 'thr_1', title: 'T', provider: 'codex', model: null, runtimeMode: 'workspace_write', interactionMode: 'default', cwd: '/w', parentThreadId: null,
    relationshipToParent: null, rootThreadId: 'thr_1', providerThreadId: 'pthr_1', createdAt: 0,
    capabilities: { supportsActiveSteering: false, supportsSteeringByInterruptRestart: true, supportsInterrupt: true, canRollbackThread: true },
  },
  events: (s) => {
    const c = s.context as ThreadSupervisorContext;
    // Real ids are never reused; the serializer below abstracts them away so fresh ones cannot grow the graph.
    const n = ++freshRun;
    const size = c.queue.length + c.countedRunIds.length;
    const send = (mode: string) => ({ type: 'SEND', runId: `run_${n}`, messageId: `msg_${n}`, rootNodeId: `node_${n}`, attemptId: `att_${n}`, text: `m${n}`, mode, provider: 'codex', model: null, targetRunId: null });
    return [
      ...(size < 3 ? ['auto', 'queue_after_active', 'start_immediately', 'steer_active'].map(send) : []),
      // A steer aimed at a run that is not the active one (it ended, or never was).
      ...(size < 3 ? [{ ...send('steer_active'), targetRunId: 'run_gone' }] : []),
      { type: 'SETTINGS_UPDATE', changes: { runtimeMode: c.runtimeMode === 'read_only' ? 'full_access' : 'read_only' } },
      ...(c.activeRunId ? [{ type: 'RUN_ENDING', runId: c.activeRunId }, { type: 'RUN_FINISHED', runId: c.activeRunId, status: 'completed' }, { type: 'INTERRUPT', runId: c.activeRunId, holdQueue: true }] : []),
      ...(c.queue[0] ? [{ type: 'CANCEL_QUEUED', runId: c.queue[0] }, { type: 'PROMOTE', runId: c.queue[0], messageId: 'msg_p', text: 'p', attemptId: 'att_p', rootNodeId: 'node_p' }] : []),
      ...(c.queue.length > 1 ? [{ type: 'REORDER', order: [...c.queue].reverse() }] : []),
      { type: 'STOP' },
      { type: 'ROLLBACK', runOrdinal: 0 },
      { type: 'ARCHIVE' },
    ];
  },
  serialize: (s) => JSON.stringify([s.value, s.context.queue.length, !!s.context.activeRunId, !!s.context.activeRunEnding, s.context.countedRunIds.length, s.context.queueHeld]),
  serializeCoarse: (s) => JSON.stringify([s.value, s.context.queue.length, !!s.context.activeRunId, s.context.queueHeld]),
  invariant: (history) => {
    const step = history.at(-1)!;
    const c = step.after.context as ThreadSupervisorContext;
    // Ordinals are dense: every START so far numbered 1, 2, 3... in order.
    const ordinals = history.flatMap((h) => h.outputs).flatMap((o) => (o.type === 'send' && o.event.type === 'START' && 'ordinal' in o.event ? [o.event.ordinal] : []));
    const rolledBackTo = history.filter((h) => h.event.type === 'ROLLBACK' && h.outputs.length).length;
    if (!rolledBackTo) expect(ordinals).toEqual(ordinals.map((_, i) => i + 1));
    expect(new Set(c.countedRunIds).size).toBe(c.countedRunIds.length);
    if (c.activeRunId) expect(c.queue).not.toContain(c.activeRunId);
    // A held queue starts nothing by itself: only an explicit send releases it.
    const starts = step.outputs.filter((o) => o.type === 'send' && o.event.type === 'START');
    if (step.before.context.queueHeld && step.event.type !== 'SEND') expect(starts).toEqual([]);
    // At most one run is active.
    expect(starts.length).toBeLessThanOrEqual(1);
    // A run that is finalizing takes no steer: the message waits as a run of its own.
    const steers = step.outputs.filter((o) => o.type === 'send' && String(o.event.type).startsWith('STEER_'));
    if ((step.before.context as ThreadSupervisorContext).activeRunEnding) expect(steers).toEqual([]);
    // A message aimed at another run than the active one changes nothing.
    if (step.event.type === 'SEND' && step.event.targetRunId === 'run_gone') expect(step.outputs).toEqual([]);
    // A run starts with the thread's settings as they are when it starts.
    for (const start of starts) expect(start.type === 'send' && 'settings' in start.event && start.event.settings).toEqual({ runtimeMode: c.runtimeMode, interactionMode: c.interactionMode });
  },
};

export const machineModels: MachineModel[] = [supervisor, run, runAttempt, executionNode, providerSession, providerThread, runtimeRequest];
