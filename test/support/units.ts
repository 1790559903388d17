import type { CommitUnit } from '../../src/persistence/commit-unit.js';
import type { EffectId, EventId, MessageId, NodeId, RunId, ThreadId, CommandId } from '../../src/domain/ids.js';
import type { RunView } from '../../src/domain/projections.js';
import type { IdSource } from '../../src/domain/sources.js';

/**
 * Builders for realistic commit units, shared by the store tests and the benchmark.
 * Unit `i` on thread `t` writes event `evt_t_i`, entity `run_t_i`, projection row `run_t_i`,
 * and optionally receipt `cmd_t_i` and effect `eff_t_i`, so a checker can tell a whole
 * unit from a torn one. With `ids`, the event and run take ids from that source instead,
 * as the runtime's would (the benchmark uses the production source).
 */
export function runView(threadId: string, i: number, runId = `run_${threadId}_${i}`): RunView {
  return {
    id: runId as RunId,
    threadId: threadId as ThreadId,
    ordinal: i,
    status: 'running',
    provider: 'codex',
    model: 'gpt-test',
    providerThreadId: null,
    userMessageId: `msg_${threadId}_${i}` as MessageId,
    rootNodeId: `node_${threadId}_${i}` as NodeId,
    activeAttemptId: null,
    checkpointId: null,
    contextHandoffId: null,
    supersedesRunId: null,
    attempts: [],
    diff: null,
    queuePosition: null,
    interruptRequested: false,
    error: null,
  };
}

export function typicalUnit(
  threadId: string,
  i: number,
  extras: { receipt?: boolean; effect?: boolean; ids?: IdSource } = {},
): CommitUnit {
  const eventId = (extras.ids?.next('event') ?? `evt_${threadId}_${i}`) as EventId;
  const run = runView(threadId, i, extras.ids?.next('run'));
  const unit: CommitUnit = {
    events: [
      {
        eventId,
        type: 'run.status-changed',
        threadId: threadId as ThreadId,
        payload: { threadId: threadId as ThreadId, runId: run.id, from: 'starting', to: 'running', reason: null },
        commandId: extras.receipt ? (`cmd_${threadId}_${i}` as CommandId) : null,
      },
    ],
    snapshots: [
      {
        entityId: run.id,
        kind: 'run',
        threadId,
        machineId: 'run',
        machineVersion: 1,
        snapshot: { status: 'active', value: 'running', context: { runId: run.id, ordinal: i } },
      },
    ],
    projections: [{ projection: 'runs', op: 'upsert', id: run.id, threadId, ord: i, row: run }],
  };
  if (extras.effect) {
    unit.effects = [
      {
        id: `eff_${threadId}_${i}` as EffectId,
        kind: 'provider.turn.start',
        threadId: threadId as ThreadId,
        runId: run.id,
        nodeId: null,
        provider: 'codex',
        payload: { attemptId: `att_${threadId}_${i}`, rootNodeId: `node_${threadId}_${i}`, text: `message ${i}` },
        causationEventId: eventId,
        commandId: extras.receipt ? (`cmd_${threadId}_${i}` as CommandId) : null,
      },
    ];
  }
  if (extras.receipt) {
    unit.receipt = {
      ok: true,
      commandId: `cmd_${threadId}_${i}` as CommandId,
      commandType: 'thread.message.send',
      threadId: threadId as ThreadId,
      result: { runId: run.id },
    };
  }
  return unit;
}
