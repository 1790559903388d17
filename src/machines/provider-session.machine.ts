import { enqueueActions, setup } from 'xstate';
import type { ProviderSessionStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type { ProviderSessionInput, ProviderSessionEvent } from './entity-messages.js';
import { changeStatusWithReason } from './status-actions.js';

/**
 * ProviderSession: the durable record of a provider runtime. The process handle is not
 * durable; this is. A stopped or failed session is restarted by the same recovery path
 * whether the cause was a crash, a restart of Baton or the idle reaper.
 */
export const PROVIDER_SESSION_MACHINE_VERSION = 1;

export type { ProviderSessionInput, ProviderSessionEvent };

export interface ProviderSessionContext extends ProviderSessionInput {
  status: ProviderSessionStatus;
  reason: string | null;
}

export const providerSessionMachine = setup({
  types: {
    context: {} as ProviderSessionContext,
    events: {} as ProviderSessionEvent,
    input: {} as ProviderSessionInput,
    emitted: {} as MachineOutput,
  },
  actions: {
    // A session that stops or fails again for another reason says so.
    setStatus: enqueueActions(
      changeStatusWithReason<ProviderSessionContext, ProviderSessionStatus>(
        (context, { to, reason }) =>
          domain('provider-session.changed', {
            threadId: context.threadId,
            session: { id: context.sessionId, provider: context.provider, status: to, reason },
          }),
        { reasonCounts: true },
      ),
    ),
  },
}).createMachine({
  id: 'providerSession',
  context: ({ input }) => ({ ...input, status: 'starting', reason: null }),
  initial: 'starting',
  states: {
    starting: {
      entry: { type: 'setStatus', params: { to: 'starting' } },
      on: { READY: 'ready' },
    },
    ready: { entry: { type: 'setStatus', params: { to: 'ready' } }, on: { BUSY: 'running' } },
    running: { entry: { type: 'setStatus', params: { to: 'running' } }, on: { WAITING: 'waiting', IDLE: 'ready' } },
    waiting: { entry: { type: 'setStatus', params: { to: 'waiting' } }, on: { BUSY: 'running', IDLE: 'ready' } },
    stopped: { entry: { type: 'setStatus', params: { to: 'stopped' } }, on: { RESTART: 'starting' } },
    error: { entry: { type: 'setStatus', params: { to: 'error' } }, on: { RESTART: 'starting' } },
  },
  on: {
    STOPPED: '.stopped',
    FAILED: '.error',
  },
});
