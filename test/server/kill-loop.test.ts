import { afterEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatonClient, type CommandAck } from '../../src/client/baton-client.js';
import type { DomainEvent } from '../../src/domain/events.js';
import { Store } from '../../src/persistence/store.js';
import { serveProcess, type ServeProcess } from '../support/serve-process.js';
import { TempFolders } from '../support/temp.js';
import { ThreadId } from '../../src/domain/ids.js';

const fixture = fileURLToPath(new URL('../fixtures/baton-server.ts', import.meta.url));
const token = 'kill-loop-test-token-0123456789';
const children: ChildProcess[] = [];
const folders = new TempFolders();
afterEach(() => {
  children.splice(0).forEach((c) => c.kill('SIGKILL'));
  folders.removeAll();
});

/** Baton's main job in a child process (the kill-test fixture); resolves once it listens. */
async function start(dataDir: string): Promise<ServeProcess> {
  const baton = await serveProcess(dataDir, { BATON_TOKEN: token }, fixture);
  children.push(baton.child);
  return baton;
}

/** The processes whose parent is `pid` (the Codex sessions of a Baton). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(pid);
      } catch {
        return false;
      }
    })
    .map(Number);
}

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('Z');

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // A poll, not a synchronisation: the condition is checked again until it holds.
    await new Promise<void>((resolve) => setTimeout(resolve, 25));
  }
}

const ok = <R>(ack: CommandAck): R => {
  if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
  return ack.result as R;
};

/** The run an event is about, wherever its payload keeps it. */
function runOf(e: DomainEvent, messageRuns: Map<string, string>): string | null {
  const p = e.payload as {
    runId?: string;
    message?: { id: string; runId: string };
    request?: { runId: string };
    node?: { runId: string };
    attempt?: { runId: string };
    messageId?: string;
  };
  if (p.message) messageRuns.set(p.message.id, p.message.runId);
  return (
    p.runId ??
    p.message?.runId ??
    p.request?.runId ??
    p.node?.runId ??
    p.attempt?.runId ??
    (p.messageId ? (messageRuns.get(p.messageId) ?? null) : null)
  );
}

/** Events that mean a provider is working for a run: none may follow the run's end. */
const activity = new Set([
  'message.created',
  'message.delta',
  'message.completed',
  'runtime-request.opened',
  'node.created',
  'run.started',
  'attempt.created',
  'plan.updated',
  'run.diff-updated',
]);

describe('crash loop', () => {
  it('20 SIGKILLs during live Codex runs: no ghost turn, no request left pending on an ended run, the thread stays usable', async () => {
    const dataDir = folders.make('baton-kill-loop-');
    const ws = folders.make('baton-kill-loop-ws-');
    let threadId = '';
    const kills = 20;
    // Where each run was when Baton died: before its provider started, streaming, waiting on an approval.
    const phases = ['queued effect', 'streaming', 'approval pending'] as const;
    /** Every run an ack named: each must be on disk after the loop, whatever phase Baton died in. */
    const acked: string[] = [];
    for (let i = 0; i < kills; i++) {
      const baton = await start(dataDir);
      const client = await BatonClient.connect(baton.url, token);
      if (!threadId) threadId = ok<{ threadId: string }>(await client.command('thread.create', { cwd: ws })).threadId;
      const phase = phases[i % phases.length]!;
      const text = `${phase === 'approval pending' ? '[approve]' : '[hang]'} message ${i}`;
      // Queued, not `auto`: a run queued by an earlier Baton starts once the run before it has its
      // checkpoint, and an `auto` message sent after that steers it instead of making a run of its
      // own (one CI run counted 20 runs where 21 were expected, every acked run stored).
      const { runId } = ok<{ runId: string }>(
        await client.command('thread.message.send', {
          threadId: ThreadId.parse(threadId),
          text,
          dispatchMode: 'queue_after_active',
        }),
      );
      const snapshot = async () =>
        (await client.query({ type: 'snapshot', request: { stream: 'thread', threadId } })).result as {
          snapshot: { runs: { id: string; status: string }[]; pendingRequests: unknown[] };
        };
      if (phase === 'streaming')
        await until(
          async () => (await snapshot()).snapshot.runs.find((r) => r.id === runId)?.status === 'running',
          `run ${i} to run`,
        );
      if (phase === 'approval pending')
        await until(async () => (await snapshot()).snapshot.pendingRequests.length > 0, `run ${i}'s approval`);
      acked.push(runId);
      client.close();
      // Codex outlives Baton only until it reads the end of its input.
      const codex = childrenOf(baton.child.pid!);
      const exited = new Promise((resolve) => baton.child.once('exit', resolve));
      baton.child.kill('SIGKILL');
      await exited;
      await until(() => codex.every((pid) => !alive(pid)), 'the Codex processes of the killed Baton to exit');
    }

    // One more start: the last killed run ends too, and the thread answers.
    const baton = await start(dataDir);
    const client = await BatonClient.connect(baton.url, token);
    // Queued, as in the loop: the last killed run may still be ending while Baton recovers.
    const { runId } = ok<{ runId: string }>(
      await client.command('thread.message.send', {
        threadId: ThreadId.parse(threadId),
        text: 'all good?',
        dispatchMode: 'queue_after_active',
      }),
    );
    await until(
      async () => {
        const { snapshot } = (await client.query({ type: 'snapshot', request: { stream: 'thread', threadId } }))
          .result as { snapshot: { runs: { id: string; status: string }[] } };
        return snapshot.runs.find((r) => r.id === runId)?.status === 'completed';
      },
      'the run after the crash loop to complete',
      60_000,
    );
    client.close();
    const stopped = new Promise((resolve) => baton.child.once('exit', resolve));
    baton.child.kill('SIGTERM');
    await stopped;

    const store = Store.open(join(dataDir, 'baton.sqlite'));
    try {
      const runs = store.projections.list('runs', threadId);
      const stored = new Set<string>(runs.map((r) => r.id));
      expect(acked.map((id, i) => ({ i, id, stored: stored.has(id) })).filter((r) => !r.stored)).toEqual([]);
      expect(runs).toHaveLength(kills + 1);
      expect(runs.slice(0, kills).every((r) => r.status === 'interrupted' || r.status === 'failed')).toBe(true);
      expect(runs.at(-1)!.status).toBe('completed');
      // No request waits on a run that has ended.
      const ended = new Set(
        runs.filter((r) => !['queued', 'starting', 'running', 'waiting'].includes(r.status)).map((r) => r.id),
      );
      expect(store.projections.list('requests').filter((r) => r.status === 'pending' && ended.has(r.runId))).toEqual(
        [],
      );
      // No provider activity for a run after its end.
      const endedAt = new Map<string, number>();
      const messageRuns = new Map<string, string>();
      const ghosts: string[] = [];
      for (const e of store.events.readThreadAfter(threadId, 0, 1_000_000)) {
        const run = runOf(e, messageRuns);
        if (!run) continue;
        if (e.type === 'run.terminal') endedAt.set(run, e.sequence);
        else if (endedAt.has(run) && activity.has(e.type)) ghosts.push(`${e.type} for ${run} after its end`);
      }
      expect(ghosts).toEqual([]);
      const outbox = store.outbox
        .list({ threadId })
        .filter((e) => e.runId && ended.has(e.runId) && (e.status === 'pending' || e.status === 'running'));
      expect(outbox.map((e) => `${e.kind} ${e.status}`)).toEqual([]);
    } finally {
      store.close();
    }
    // pyenv's rehash lock is held for a moment by any login shell starting (other test files
    // run Codex commands meanwhile); one left behind by a killed shell would stay for a minute.
    const pyenvLock = join(homedir(), '.pyenv', 'shims', '.pyenv-shim');
    await until(() => !existsSync(pyenvLock), "pyenv's rehash lock to be released", 20_000);
  }, 300_000);
});
