import { assign, emit, enqueueActions, setup } from 'xstate';
import type { ProviderThreadStatus } from '../domain/statuses.js';
import { domain, type MachineOutput } from './outputs.js';
import type { ProviderThreadInput, ProviderThreadEvent } from './entity-messages.js';
import { changeStatusWithReason, type EntityTag } from './status-actions.js';

/**
 * ProviderThread: a provider-native conversation handle. Its native ref and resume cursor
 * are durable so any later session can resume it. When it cannot be resumed it goes to
 * `error` for good: the thread's next run reseeds a replacement from app context. A
 * subagent's own conversation is one too, owned by its node (`owner`); its turns are the
 * child's, and it ends `closed` when the child is closed, `error` when its session is gone.
 */
export const PROVIDER_THREAD_MACHINE_VERSION = 1;

export type { ProviderThreadInput, ProviderThreadEvent };

export interface ProviderThreadContext extends ProviderThreadInput {
  status: ProviderThreadStatus;
  nativeThreadRef: string | null;
  resumeCursor: string | null;
  firstRunOrdinal: number | null;
  lastRunOrdinal: number | null;
  reason: string | null;
}

const view = (c: ProviderThreadContext, status: ProviderThreadStatus) => ({
  id: c.providerThreadId,
  provider: c.provider,
  status,
  nativeThreadRef: c.nativeThreadRef,
  resumeCursor: c.resumeCursor,
  owner: c.owner ?? { type: 'thread' as const, threadId: c.threadId },
  coverage: { firstRunOrdinal: c.firstRunOrdinal, lastRunOrdinal: c.lastRunOrdinal, handoffIds: [] },
  forkedFrom: c.forkedFrom,
});

export const providerThreadMachine = setup({
  types: {
    context: {} as ProviderThreadContext,
    events: {} as ProviderThreadEvent,
    input: {} as ProviderThreadInput,
    emitted: {} as MachineOutput,
    tags: {} as EntityTag,
  },
  actions: {
    setStatus: enqueueActions(
      changeStatusWithReason<ProviderThreadContext, ProviderThreadStatus>(
        (context, { to, reason }) =>
          domain('provider-thread.status-changed', {
            threadId: context.threadId,
            providerThreadId: context.providerThreadId,
            to,
            reason,
          }),
        { reasonCounts: false },
      ),
    ),
    announce: emit(({ context }) =>
      domain('provider-thread.bound', { threadId: context.threadId, providerThread: view(context, 'not_loaded') }),
    ),
    bind: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'LOADED') return;
      const next = {
        ...context,
        nativeThreadRef: event.nativeThreadRef,
        resumeCursor: event.resumeCursor ?? context.resumeCursor,
      };
      enqueue.assign({ nativeThreadRef: next.nativeThreadRef, resumeCursor: next.resumeCursor });
      enqueue.emit(domain('provider-thread.bound', { threadId: context.threadId, providerThread: view(next, 'idle') }));
    }),
    cover: assign(({ context, event }) =>
      event.type === 'TURN_BEGAN' && event.runOrdinal !== null
        ? { firstRunOrdinal: context.firstRunOrdinal ?? event.runOrdinal, lastRunOrdinal: event.runOrdinal }
        : {},
    ),
  },
}).createMachine({
  id: 'providerThread',
  context: ({ input }) => ({
    ...input,
    status: 'not_loaded',
    nativeThreadRef: null,
    resumeCursor: null,
    firstRunOrdinal: null,
    lastRunOrdinal: null,
    reason: null,
  }),
  entry: 'announce',
  initial: 'not_loaded',
  states: {
    not_loaded: {
      entry: { type: 'setStatus', params: { to: 'not_loaded' } },
      on: { LOADED: { target: 'idle', actions: 'bind' } },
    },
    idle: {
      entry: { type: 'setStatus', params: { to: 'idle' } },
      on: { TURN_BEGAN: { target: 'active', actions: 'cover' }, UNLOADED: 'not_loaded', LOADED: { actions: 'bind' } },
    },
    active: {
      entry: { type: 'setStatus', params: { to: 'active' } },
      on: { TURN_ENDED: 'idle', TURN_BEGAN: { actions: 'cover' }, UNLOADED: 'not_loaded' },
    },
    error: { type: 'final', entry: { type: 'setStatus', params: { to: 'error' } } },
    archived: { type: 'final', entry: { type: 'setStatus', params: { to: 'archived' } } },
    closed: { type: 'final', entry: { type: 'setStatus', params: { to: 'closed' } } },
  },
  on: {
    FAILED: '.error',
    ARCHIVE: '.archived',
    CLOSE: '.closed',
  },
});
