import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderCapabilities } from '../../../../src/domain/capabilities.js';
import { check, type ProviderScenario } from '../scenario.js';
import { send, status, assistantTexts } from '../baton.js';

/** The declared capabilities with no provider rollback: the rollback fallback's scenario (divergent + reseed). */
const withoutProviderRollback = (declared: ProviderCapabilities): ProviderCapabilities => ({
  ...declared,
  threads: { ...declared.threads, canRollbackThread: false },
  checkpointing: { ...declared.checkpointing, providerCanRollbackConversation: false },
});

/** Threads over time: forks, rollbacks, a dead agent, a restarted Baton. */
export const threadScenarios: ProviderScenario[] = [
  {
    name: 'fork_native',
    needs: ['threads.canForkThread', 'threads.canForkFromTurn'],
    model: [
      { kind: 'text', text: 'Source answer.' },
      { kind: 'text', text: 'Fork answer.' },
    ],
    async drive({ h, cwd }) {
      const source = await h.thread({ threadId: 'thr_source', cwd });
      const runId = await send(h, source, 'remember the number 42');
      await h.until(() => status(h, runId) === 'completed');
      const forked = await h.command({
        type: 'thread.fork',
        sourceThreadId: source,
        source: { type: 'run', threadId: source, runId },
        threadId: 'thr_fork',
      });
      check(forked.ok, `fork refused: ${JSON.stringify(forked)}`);
      // Forking records lineage only: no provider work until the fork's first run.
      check(h.store.projections.get('threads', 'thr_fork')!.lineage.parentThreadId === source, 'lineage recorded');
      const forkRun = await send(h, 'thr_fork', 'what was the number?');
      await h.until(() => status(h, forkRun) === 'completed');
      const resolved = h.store.events.readThreadAfter('thr_fork', 0).find((e) => e.type === 'thread.fork-resolved');
      check(
        (resolved?.payload as { strategy?: string } | undefined)?.strategy === 'native_fork',
        'resolved by a native fork of the provider',
      );
      check(assistantTexts(h, 'thr_fork').at(-1) === 'Fork answer.', 'the fork answered');
      check(assistantTexts(h, source).length === 1, 'the source thread is untouched');
    },
  },
  {
    name: 'thread_rollback',
    needs: [
      'threads.canRollbackThread',
      'checkpointing.providerCanRollbackConversation',
      'checkpointing.appCanCheckpointFilesystem',
    ],
    model: [
      { kind: 'text', text: 'one' },
      { kind: 'text', text: 'two' },
      { kind: 'text', text: 'after rollback' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_rollback', cwd });
      const file = join(cwd, 'story.txt');
      const one = await send(h, threadId, 'first');
      await h.until(() => status(h, one) === 'running');
      writeFileSync(file, 'version 1\n');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, threadId, 'second');
      await h.until(() => status(h, two) === 'running');
      writeFileSync(file, 'version 2\n');
      await h.until(() => status(h, two) === 'completed');
      check((await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).ok, 'rolled back');
      check(readFileSync(file, 'utf8') === 'version 1\n', 'files restored');
      await h.until(() =>
        h.store.outbox
          .list({ threadId })
          .filter((e) => e.kind === 'provider.thread.rollback')
          .every((e) => e.status === 'completed'),
      );
      check(status(h, two) === 'rolled_back', 'run 2 rolled back');
      const three = await send(h, threadId, 'third');
      await h.until(() => status(h, three) === 'completed');
      check(h.store.projections.get('runs', three)!.ordinal === 2, 'the next run is run 2 again');
    },
  },
  {
    // DESIGN.md section 4: no provider rollback -> restore files, mark the provider thread divergent, reseed.
    name: 'thread_rollback_reseed',
    needs: ['checkpointing.appCanCheckpointFilesystem', 'context.acceptsSyntheticUserContext'],
    adjustCapabilities: withoutProviderRollback,
    model: [
      { kind: 'text', text: 'Wrote version one.' },
      { kind: 'text', text: 'the secret is 42' },
      { kind: 'text', text: 'Reseeded answer.' },
    ],
    async drive({ h, cwd }) {
      const threadId = await h.thread({ threadId: 'thr_reseed', cwd });
      const file = join(cwd, 'story.txt');
      const one = await send(h, threadId, 'write version one');
      await h.until(() => status(h, one) === 'running');
      writeFileSync(file, 'version 1\n');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, threadId, 'write version two and keep a secret');
      await h.until(() => status(h, two) === 'running');
      writeFileSync(file, 'version 2\n');
      await h.until(() => status(h, two) === 'completed');
      const diverged = h.store.projections.get('runs', two)!.providerThreadId;
      check((await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).ok, 'rolled back');
      check(readFileSync(file, 'utf8') === 'version 1\n', 'files restored');
      check(status(h, two) === 'rolled_back', 'run 2 rolled back');
      check(
        !h.store.outbox.list({ threadId }).some((e) => e.kind === 'provider.thread.rollback'),
        'the provider is not asked to roll back',
      );
      const marked = h.store.events
        .readThreadAfter(threadId, 0)
        .flatMap((e) => (e.type === 'provider-thread.status-changed' ? [e.payload] : []))
        .find((p) => p.providerThreadId === diverged && p.to === 'error');
      check(marked?.reason?.startsWith('diverged'), `run 2's provider thread marked divergent, got ${marked?.reason}`);
      check(
        h.store.projections.get('threads', threadId)!.warnings.some((w) => w.message.includes('marked divergent')),
        'the divergence is a thread warning',
      );
      const three = await send(h, threadId, 'what does the story say?');
      await h.until(() => status(h, three) === 'completed');
      const run = h.store.projections.get('runs', three)!;
      check(run.ordinal === 2, 'the next run is run 2 again');
      check(
        run.providerThreadId !== diverged && run.attempts.map((a) => a.reason).join() === 'provider_recovery',
        `the next run recovers in a replacement provider thread, got ${run.providerThreadId} ${run.attempts.map((a) => a.reason)}`,
      );
      check(assistantTexts(h, threadId).at(-1) === 'Reseeded answer.', 'the replacement answered');
      // Baton's recorded seed tells run 1 and nothing of the rolled-back run 2.
      const seeded = h.store.events
        .readThreadAfter(threadId, 0)
        .flatMap((e) => (e.type === 'context.seeded' && e.payload.runId === three ? [e.payload] : []))[0];
      check(
        seeded && JSON.stringify(seeded.coveredRunOrdinals) === '[1]',
        `the seed covers run 1 only: ${JSON.stringify(seeded?.coveredRunOrdinals)}`,
      );
      check(
        seeded.text.includes('write version one') && seeded.text.includes('Wrote version one.'),
        `the seed tells run 1: ${seeded.text}`,
      );
      check(
        !seeded.text.includes('version two') && !seeded.text.includes('secret'),
        `the seed tells nothing of run 2: ${seeded.text}`,
      );
      const item = h.store.projections.list('turn_items', threadId).find((i) => i.data.contextSeed === true);
      check(
        item?.runId === three && item.text === seeded.text,
        "the seed is on record as the recovering run's turn item",
      );
    },
  },
  {
    name: 'provider_crash_recovery',
    needs: ['threads.exposesNativeThreadId'],
    model: [{ kind: 'text', text: 'Before the crash.' }, { kind: 'hang' }, { kind: 'text', text: 'Back again.' }],
    async drive({ h, cwd, modelAsked, kill }) {
      const threadId = await h.thread({ threadId: 'thr_crash', cwd });
      const one = await send(h, threadId, 'first');
      await h.until(() => status(h, one) === 'completed');
      const two = await send(h, threadId, 'second');
      await h.until(() => status(h, two) === 'running');
      await modelAsked(2);
      kill(threadId);
      await h.until(() => status(h, two) === 'failed');
      check(
        h.store.projections.list('sessions', threadId).some((x) => x.status === 'error'),
        'the session is marked',
      );
      const three = await send(h, threadId, 'third');
      await h.until(() => status(h, three) === 'completed');
      check(assistantTexts(h, threadId).at(-1) === 'Back again.', 'the next message succeeds on a resumed thread');
    },
  },
  {
    name: 'restart_recovery',
    needs: ['approvals.supportsCommandApproval', 'approvals.approvalCallbacksAreLiveOnly'],
    model: [
      { kind: 'command', command: 'echo hi', needsApproval: true, callId: 'call_restart' },
      { kind: 'text', text: 'Still here.' },
    ],
    async drive({ h, cwd, restart }) {
      const threadId = await h.thread({ threadId: 'thr_reboot', cwd });
      const one = await send(h, threadId, 'needs approval');
      await h.until(() => h.store.projections.list('requests', threadId).some((r) => r.status === 'pending'));
      const h2 = await restart();
      await h2.runtime.recoverAfterRestart();
      const request = h2.store.projections.list('requests', threadId)[0]!;
      check(request.responseCapability.type === 'not_resumable', 'the request is not resumable');
      check(
        request.status === 'cancelled' && h2.store.projections.get('threads', threadId)!.pendingRequestCount === 0,
        `the request ended cancelled, none pending: ${request.status}`,
      );
      const answer = await h2.command({ type: 'runtime-request.respond', requestId: request.id, decision: 'accept' });
      check(
        !answer.ok && (answer as { error: { code: string } }).error.code === 'not_resumable',
        `answering it is refused, typed, got ${JSON.stringify(answer)}`,
      );
      await h2.until(() => status(h2, one) === 'interrupted');
      const two = await send(h2, threadId, 'carry on');
      await h2.until(() => status(h2, two) === 'completed');
    },
  },
];
