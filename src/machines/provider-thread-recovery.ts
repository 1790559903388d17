import type { ProviderThreadId, RunId } from '../domain/ids.js';
import type { DispatchCapabilities, ThreadSupervisorEvent } from './entity-messages.js';
import { domain, type MachineOutput, type MachineStep } from './outputs.js';
import { afterNativeRollback, spawnProviderThread, type SwitchState } from './provider-switching.js';

/**
 * What happens to the thread's current provider thread when its conversation no longer
 * matches Baton's runs (pure: the supervisor applies `assign` and emits `outputs`):
 * - a rollback: the provider rolls its conversation back, or, if it cannot, the thread is
 *   marked divergent and replaced, and the next run reseeds the replacement;
 * - a failure (it could not be resumed): it is replaced; the active run goes on in the
 *   replacement (reseeded there), or, with none, the next run reseeds it.
 * The thread rolled back or replaced is the current one, whatever provider a waiting switch
 * already names (`providerThreadProvider`, `providerThreadCapabilities`).
 */

export interface RecoveryState extends SwitchState {
  capabilities: DispatchCapabilities;
  activeRunId: RunId | null;
  activeRunEnding: boolean;
}

export type Recovery = MachineStep<RecoveryState>;

const providerOf = (c: RecoveryState) => c.providerThreadProvider ?? c.provider;

/** The provider thread's side of a rollback to `ordinal` that drops later runs. */
export function rollbackProviderThread(
  c: RecoveryState,
  ordinal: number,
  replacement: ProviderThreadId | undefined,
): Recovery {
  const provider = providerOf(c);
  const capabilities = c.providerThreadCapabilities ?? c.capabilities;
  if (capabilities.canRollbackThread)
    return {
      assign: afterNativeRollback(c, ordinal),
      outputs: [
        {
          type: 'effect',
          effect: {
            kind: 'provider.thread.rollback',
            provider,
            runId: null,
            nodeId: null,
            payload: { providerThreadId: c.providerThreadId, runOrdinal: ordinal },
          },
        },
      ],
    };
  // No provider rollback: its conversation has diverged from the files; the next run reseeds a replacement.
  const outputs: MachineOutput[] = [];
  const assign: Partial<RecoveryState> = { reseedNext: true };
  if (replacement) {
    outputs.push(
      {
        type: 'send',
        to: { kind: 'provider_thread', id: c.providerThreadId },
        event: { type: 'FAILED', reason: 'diverged: the provider cannot roll back its conversation' },
      },
      spawnProviderThread(c.threadId, replacement, provider),
    );
    Object.assign(assign, { providerThreadId: replacement, currentToldThrough: null });
  }
  outputs.push(
    domain('runtime.warning', {
      threadId: c.threadId,
      runId: null,
      message: 'the provider cannot roll back its conversation: it is marked divergent and the next run reseeds it',
    }),
  );
  return { assign, outputs };
}

/** A provider thread that failed for good (it could not be resumed) is replaced. */
export function replaceFailedProviderThread(
  c: RecoveryState,
  event: Extract<ThreadSupervisorEvent, { type: 'PROVIDER_THREAD_FAILED' }>,
): Recovery {
  const outputs: MachineOutput[] = [
    {
      type: 'send',
      to: { kind: 'provider_thread', id: c.providerThreadId },
      event: { type: 'FAILED', reason: event.reason },
    },
    spawnProviderThread(c.threadId, event.replacementProviderThreadId, providerOf(c)),
  ];
  const recovering = c.activeRunEnding ? null : c.activeRunId;
  if (recovering === null)
    outputs.push(
      domain('runtime.warning', {
        threadId: c.threadId,
        runId: null,
        message: `the provider thread failed (${event.reason}); the next run goes to a replacement seeded from Baton's record`,
      }),
    );
  else
    outputs.push({
      type: 'send',
      to: { kind: 'run', id: recovering },
      event: {
        type: 'PROVIDER_RECOVERY',
        failedProviderThreadId: event.failedProviderThreadId,
        providerThreadId: event.replacementProviderThreadId,
        attemptId: event.recoveryAttemptId,
        rootNodeId: event.recoveryRootNodeId,
        reason: event.reason,
      },
    });
  return {
    assign: {
      providerThreadId: event.replacementProviderThreadId,
      reseedNext: recovering === null,
      currentToldThrough: null,
    },
    outputs,
  };
}
