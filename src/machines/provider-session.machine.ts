import { enqueueActions, setup } from 'xstate';
import type { ProviderKind, ProviderSessionStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';

/**
 * ProviderSession: the durable record of a provider runtime. The process handle is not
 * durable; this is. A stopped or failed session is restarted by the same recovery path
 * whether the cause was a crash, a restart of Baton or the idle reaper.
 */
export const PROVIDER_SESSION_MACHINE_VERSION = 1;

export interface ProviderSessionInput {
  sessionId: string;
  threadId: string | null;
  provider: ProviderKind;
}

export interface ProviderSessionContext extends ProviderSessionInput {
  status: ProviderSessionStatus;
  reason: string | null;
}

export type ProviderSessionEvent =
  | { type: 'READY' }
  | { type: 'BUSY' }
  | { type: 'WAITING' }
  | { type: 'IDLE' }
  | { type: 'STOPPED'; reason: string }
  | { type: 'FAILED'; reason: string }
  | { type: 'RESTART' };

export const providerSessionMachine = setup({
  types: { context: {} as ProviderSessionContext, events: {} as ProviderSessionEvent, input: {} as ProviderSessionInput, emitted: {} as MachineOutput },
  actions: {
    setStatus: enqueueActions(({ context, event, enqueue }, params: { to: ProviderSessionStatus }) => {
      const reason = 'reason' in event ? event.reason : null;
      if (context.status === params.to && context.reason === reason) return;
      enqueue.assign({ status: params.to, reason });
      enqueue.emit(domain('provider-session.changed', {
        threadId: context.threadId as never,
        session: { id: context.sessionId as never, provider: context.provider, status: params.to, reason },
      }));
    }),
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
