import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useLiveCodex } from '../support/live-codex.js';
import type { Harness } from '../support/runtime.js';
import { streamSnapshot } from '../../src/server/streams.js';
import { portableItemsOf } from '../../src/context/reseed.js';

const { model, providers, open, workspace, dataDir } = useLiveCodex();

/** Every rollout file under the shared Codex home whose name holds the native thread id. */
function rollouts(nativeThreadId: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.startsWith('rollout-') && name.includes(nativeThreadId)) found.push(path);
    }
  };
  walk(join(dataDir, 'codex', 'home', 'sessions'));
  return found;
}

function providerThread(h: Harness, id: string) {
  return (h.store.entities.get(id)?.snapshot as { context: { status: string; nativeThreadRef: string | null } })
    .context;
}

describe('Codex, live: recovery that recovers', () => {
  it("a thread/resume that fails (its rollout is gone) replaces the Codex thread, seeded from Baton's own items, and the run goes on", async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    model.enqueue({ kind: 'text', text: 'The secret word is heliotrope.' });
    const one = await h.send(threadId, 'remember the secret word recovery-r1');
    await h.until(() => h.ended(one));
    expect(h.run(one).status).toBe('completed');
    const failedProviderThread = h.run(one).providerThreadId!;
    const native = providerThread(h, failedProviderThread).nativeThreadRef!;

    // The fault, made real: Codex is gone and so is the thread's rollout; thread/resume must read it.
    const provider = providers[0]!;
    expect(provider.reapIdle()).toBe(1);
    await h.until(() => h.store.projections.list('sessions', threadId).some((s) => s.status === 'stopped'));
    const files = rollouts(native);
    expect(files.length).toBeGreaterThan(0);
    files.forEach((f) => rmSync(f));

    model.enqueue({ kind: 'text', text: 'It was heliotrope.' });
    const two = await h.send(threadId, 'what was the word? recovery-r2');
    await h.until(() => h.ended(two));
    const r2 = h.run(two);
    expect(r2.status, JSON.stringify(r2.error)).toBe('completed');

    // A typed thread.failed: the broken provider thread is in error, a replacement carries the run.
    expect(providerThread(h, failedProviderThread).status).toBe('error');
    expect(r2.providerThreadId).not.toBe(failedProviderThread);
    const replacement = providerThread(h, r2.providerThreadId!);
    expect(replacement.nativeThreadRef).toBeTruthy();
    expect(replacement.nativeThreadRef).not.toBe(native);
    expect(r2.attempts.map((a) => [a.reason, a.status])).toEqual([
      ['initial', 'failed'],
      ['provider_recovery', 'completed'],
    ]);
    expect(h.store.projections.get('threads', threadId)!.activeProviderThreadId).toBe(r2.providerThreadId);

    // The seed: Baton's own account of run 1, sent with the user's message, recorded where anyone can read it.
    const seeded = h.store.projections
      .list('turn_items', threadId)
      .filter((i) => i.kind === 'system' && i.data.contextSeed === true);
    expect(seeded).toHaveLength(1);
    const seed = seeded[0]!;
    expect(seed.runId).toBe(two);
    expect(seed.data).toMatchObject({
      strategy: 'full',
      coveredRunOrdinals: [1],
      chars: seed.text.length,
      providerThreadId: r2.providerThreadId,
    });
    expect(seed.text).toContain('recovery-r1');
    expect(seed.text).toContain('The secret word is heliotrope.');
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).toContain('The secret word is heliotrope.');
    expect(input).toContain('recovery-r2');

    // The next run goes on the replacement thread natively: no second seed.
    model.enqueue({ kind: 'text', text: 'Still heliotrope.' });
    const three = await h.send(threadId, 'and again? recovery-r3');
    await h.until(() => h.ended(three));
    expect(h.run(three).status).toBe('completed');
    expect(h.run(three).providerThreadId).toBe(r2.providerThreadId);
    expect(h.run(three).attempts.map((a) => a.reason)).toEqual(['initial']);
    expect(
      h.store.projections
        .list('turn_items', threadId)
        .filter((i) => i.kind === 'system' && i.data.contextSeed === true),
    ).toHaveLength(1);
    expect(JSON.stringify(model.requests.at(-1)!.body.input)).toContain('It was heliotrope.');
  }, 90_000);
});

describe('Codex, live: a rollback reconciled', () => {
  it("thread/revert: items of rolled-back runs are marked and leave the visible conversation; what Codex kept matches Baton's runs", async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const runs: string[] = [];
    for (const n of [1, 2, 3]) {
      model.enqueue({ kind: 'text', text: `answer ${n}` });
      runs.push(await h.send(threadId, `revert-run-${n}`));
      await h.until(() => h.ended(runs.at(-1)!));
    }
    const providerThreadId = h.run(runs[0]!).providerThreadId!;
    const turnOf = (runId: string) =>
      h.store.bindings.forApp(h.run(runId).attempts[0]!.id).find((b) => b.entityKind === 'run_attempt')!.nativeRef;

    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).toMatchObject({ ok: true });
    await h.until(() => h.published.some((e) => e.type === 'provider-thread.reconciled'));

    // What Codex kept, checked against Baton's runs: exactly run 1's turn.
    const reconciled = h.published.find((e) => e.type === 'provider-thread.reconciled')!;
    expect(reconciled.payload).toEqual({
      threadId,
      providerThreadId,
      runOrdinal: 1,
      remainingTurnRefs: [turnOf(runs[0]!)],
      missingTurnRefs: [],
      unexpectedTurnRefs: [],
    });
    expect(
      h.store.projections.get('threads', threadId)!.warnings.filter((w) => w.message.includes('does not match')),
    ).toEqual([]);

    // Baton's items of runs 2 and 3 stay on record, marked, and leave the visible conversation.
    const items = h.store.projections.list('turn_items', threadId);
    const later = new Set(runs.slice(1));
    expect(items.filter((i) => i.runId && later.has(i.runId)).length).toBeGreaterThan(0);
    expect(items.every((i) => i.rolledBack === (i.runId !== null && later.has(i.runId)))).toBe(true);
    expect(
      h.store.projections
        .list('messages', threadId)
        .filter((m) => m.rolledBack)
        .map((m) => m.text)
        .sort(),
    ).toEqual(['answer 2', 'answer 3', 'revert-run-2', 'revert-run-3']);
    const snapshot = streamSnapshot(h.store, { stream: 'thread', threadId: threadId as never }) as {
      visibleTurnItems: { runId: string | null; text: string }[];
      turnItems: unknown[];
    };
    expect(snapshot.turnItems).toHaveLength(items.length);
    expect(snapshot.visibleTurnItems.filter((i) => i.runId !== null && later.has(i.runId))).toEqual([]);
    expect(snapshot.visibleTurnItems.length).toBe(items.filter((i) => !i.rolledBack).length);
    expect(snapshot.visibleTurnItems.map((i) => i.text)).toEqual(expect.arrayContaining(['revert-run-1', 'answer 1']));

    // A reseed after this would tell only run 1.
    expect(portableItemsOf(h.store, threadId, 4).map((i) => i.text)).not.toContain('revert-run-2');
  }, 90_000);
});

describe('Codex, live: a rollback whose native thread disagrees or is gone', () => {
  async function threeRuns(h: Harness, threadId: string, tag: string): Promise<string[]> {
    const runs: string[] = [];
    for (const n of [1, 2, 3]) {
      model.enqueue({ kind: 'text', text: `${tag} answer ${n}` });
      runs.push(await h.send(threadId, `${tag}-run-${n}`));
      await h.until(() => h.ended(runs.at(-1)!));
    }
    return runs;
  }

  /** Stops Codex (so the next request must resume the thread from its rollout) and returns the rollout's path. */
  async function releaseCodex(h: Harness, threadId: string, runId: string): Promise<string> {
    const native = providerThread(h, h.run(runId).providerThreadId!).nativeThreadRef!;
    expect(providers[0]!.reapIdle()).toBe(1);
    await h.until(() => h.store.projections.list('sessions', threadId).some((s) => s.status === 'stopped'));
    const [file] = rollouts(native);
    return file!;
  }

  /** The fault: one turn is cut out of the rollout (its session header stays). */
  function cutTurn(file: string, turn: string): void {
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const from = lines.findIndex((l) => l.includes('"task_started"') && l.includes(turn));
    const to = lines.findIndex((l) => l.includes('"task_complete"') && l.includes(turn));
    expect(from).toBeGreaterThan(0);
    writeFileSync(file, [...lines.slice(0, from), ...lines.slice(to + 1)].join('\n') + '\n');
  }

  it('a thread/revert Codex refuses (the rollout shrank under its index): the provider thread is replaced and the next run is reseeded with the kept runs', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const runs = await threeRuns(h, threadId, 'refused');
    const failed = h.run(runs[0]!).providerThreadId!;
    const turnThree = h.store.bindings
      .forApp(h.run(runs[2]!).attempts[0]!.id)
      .find((b) => b.entityKind === 'run_attempt')!.nativeRef;
    cutTurn(await releaseCodex(h, threadId, runs[0]!), turnThree);

    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).toMatchObject({ ok: true });
    await h.until(() => providerThread(h, failed).status === 'error');
    expect(
      h.store.outbox
        .list({ threadId })
        .filter((e) => e.kind === 'provider.thread.rollback')
        .map((e) => e.status),
    ).toEqual(['completed']);
    const warnings = h.store.projections.get('threads', threadId)!.warnings.map((w) => w.message);
    expect(warnings).toContainEqual(expect.stringContaining('Codex could not roll back'));

    model.enqueue({ kind: 'text', text: 'refused answer 4' });
    const next = await h.send(threadId, 'refused-run-next');
    await h.until(() => h.ended(next));
    expect(h.run(next)).toMatchObject({ status: 'completed', ordinal: 2 });
    expect(h.run(next).attempts.map((a) => a.reason)).toEqual(['provider_recovery']);
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).toContain('refused answer 1');
    expect(input).not.toContain('refused-run-2');
  }, 90_000);

  it("a rollout that lost a kept run's turn: after thread/revert the mismatch is reconciled as a visible warning, never ignored", async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const runs = await threeRuns(h, threadId, 'lost');
    const turnOf = (runId: string) =>
      h.store.bindings.forApp(h.run(runId).attempts[0]!.id).find((b) => b.entityKind === 'run_attempt')!.nativeRef;
    const turnOne = turnOf(runs[0]!);
    cutTurn(await releaseCodex(h, threadId, runs[0]!), turnOne);
    // ...and Codex's own index of its threads goes too, so the resume rebuilds the thread from what is left.
    for (const name of readdirSync(join(dataDir, 'codex', 'home')).filter((n) => n.startsWith('thread_history_')))
      rmSync(join(dataDir, 'codex', 'home', name));

    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 2 })).toMatchObject({ ok: true });
    await h.until(() => h.published.some((e) => e.type === 'provider-thread.reconciled'));
    const reconciled = h.published.find((e) => e.type === 'provider-thread.reconciled')!;
    expect(reconciled.payload).toMatchObject({
      runOrdinal: 2,
      remainingTurnRefs: [turnOf(runs[1]!)],
      missingTurnRefs: [turnOne],
      unexpectedTurnRefs: [],
    });
    const warnings = h.store.projections.get('threads', threadId)!.warnings.map((w) => w.message);
    expect(warnings).toContainEqual(
      expect.stringContaining("does not match Baton's: 1 kept turn(s) missing, 0 unexpected"),
    );
  }, 90_000);

  it('a rollback whose native thread cannot be resumed: thread.failed, and the next run is reseeded with only the kept runs', async () => {
    const h = open();
    const threadId = await h.thread({ cwd: workspace() });
    const runs = await threeRuns(h, threadId, 'gone');
    const failed = h.run(runs[0]!).providerThreadId!;
    rmSync(await releaseCodex(h, threadId, runs[0]!));

    expect(await h.command({ type: 'rollback.toRun', threadId, runOrdinal: 1 })).toMatchObject({ ok: true });
    await h.until(() => providerThread(h, failed).status === 'error');
    expect(
      h.store.outbox
        .list({ threadId })
        .filter((e) => e.kind === 'provider.thread.rollback')
        .map((e) => e.status),
    ).toEqual(['completed']);

    model.enqueue({ kind: 'text', text: 'gone answer 4' });
    const next = await h.send(threadId, 'gone-run-next');
    await h.until(() => h.ended(next));
    const r = h.run(next);
    expect(r.status, JSON.stringify(r.error)).toBe('completed');
    expect(r.ordinal).toBe(2);
    expect(r.providerThreadId).not.toBe(failed);
    expect(r.attempts.map((a) => a.reason)).toEqual(['provider_recovery']);
    const seed = h.store.projections.list('turn_items', threadId).find((i) => i.data.contextSeed === true)!;
    expect(seed.data).toMatchObject({ coveredRunOrdinals: [1], strategy: 'full' });
    const input = JSON.stringify(model.requests.at(-1)!.body.input);
    expect(input).toContain('gone-run-1');
    expect(input).toContain('gone answer 1');
    expect(input).not.toContain('gone-run-2');
    expect(input).not.toContain('gone answer 3');
  }, 90_000);
});
