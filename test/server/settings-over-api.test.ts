import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BatonClient, CommandAck } from '../../src/client/baton-client.js';
import type { DomainEvent } from '../../src/domain/events.js';
import type { ModelTurn, RecordedRequest } from '../../src/providers/model/scripted-model-server.js';
import type { BatonApp } from '../../src/app/baton-app.js';
import { useBatons } from '../support/baton-app.js';
import { tempDir } from '../support/temp.js';
import { ThreadId } from '../../src/domain/ids.js';

/**
 * Issue 11's acceptance, through the public API: a GUI's Socket.IO client against a real
 * `startBaton` with the real Codex. The scripted model asks Codex to run a command, then
 * says done; the files on disk say whether the thread's runtime mode reached Codex.
 */
const { baton, client, onCleanup } = useBatons();
// Outside every workspace and outside /tmp (which Codex's workspace-write sandbox keeps writable).
const outside = mkdtempSync('/var/tmp/baton-api-settings-');
afterAll(() => rmSync(outside, { recursive: true, force: true }));

const ok = <R>(ack: CommandAck): R => {
  if (!ack.ok) throw new Error(`${ack.error.code}: ${ack.error.message}`);
  return ack.result as R;
};

interface Scripted {
  app: BatonApp;
  c: BatonClient;
  requests: RecordedRequest[];
  /** Sends `text` with the model scripted to run `command`; resolves with the run's terminal event once it ends. */
  runCommand(threadId: string, command: string): Promise<DomainEvent>;
}

async function scriptedBaton(): Promise<Scripted> {
  const turns: ModelTurn[] = [];
  const requests: RecordedRequest[] = [];
  const app = await baton((request) => {
    requests.push(request);
    return turns.shift() ?? { kind: 'text', text: 'done' };
  });
  const c = await client(app);
  const events: DomainEvent[] = [];
  const waiters = new Set<() => void>();
  const watched = new Set<string>();
  return {
    app,
    c,
    requests,
    async runCommand(threadId, command) {
      if (!watched.has(threadId)) {
        watched.add(threadId);
        await c.subscribe(
          { stream: 'thread', threadId: ThreadId.parse(threadId) },
          (e) => (events.push(e), waiters.forEach((w) => w())),
        );
      }
      turns.push({ kind: 'exec', command }, { kind: 'text', text: 'done' });
      const { runId } = ok<{ runId: string }>(
        await c.command('thread.message.send', { threadId: ThreadId.parse(threadId), text: `run: ${command}` }),
      );
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`run ${runId} did not end`)), 60_000);
        const check = () => {
          const end = events.find((e) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId);
          if (!end) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(end);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

const workspace = () => {
  const ws = tempDir('baton-api-settings-ws-');
  onCleanup(ws.cleanup);
  return ws.dir;
};
const requestsOf = async (c: BatonClient, threadId: string) =>
  (
    (await c.query({ type: 'snapshot', request: { stream: 'thread', threadId } })).result as {
      snapshot: { pendingRequests: unknown[] };
    }
  ).snapshot.pendingRequests;

describe('thread settings through the public API (Socket.IO, the real Codex)', () => {
  it('workspace_write writes in its cwd with no approval; read_only cannot; settings.update to workspace_write lets the next run write; full_access writes outside', async () => {
    const { c, runCommand } = await scriptedBaton();

    const wsWrite = workspace();
    const writer = ok<{ threadId: string }>(
      await c.command('thread.create', { cwd: wsWrite, runtimeMode: 'workspace_write' }),
    ).threadId;
    expect((await runCommand(writer, 'echo one > one.txt')).payload).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(wsWrite, 'one.txt'), 'utf8')).toBe('one\n');
    expect(await requestsOf(c, writer)).toEqual([]);

    const wsRead = workspace();
    const reader = ok<{ threadId: string }>(
      await c.command('thread.create', { cwd: wsRead, runtimeMode: 'read_only' }),
    ).threadId;
    await runCommand(reader, 'echo one > one.txt');
    expect(existsSync(join(wsRead, 'one.txt'))).toBe(false);
    // The same provider thread, now workspace_write: its next run can write.
    ok(await c.command('thread.settings.update', { threadId: ThreadId.parse(reader), runtimeMode: 'workspace_write' }));
    await runCommand(reader, 'echo two > two.txt');
    expect(readFileSync(join(wsRead, 'two.txt'), 'utf8')).toBe('two\n');

    const full = ok<{ threadId: string }>(
      await c.command('thread.create', { cwd: workspace(), runtimeMode: 'full_access' }),
    ).threadId;
    await runCommand(full, `echo out > ${outside}/full.txt`);
    expect(readFileSync(join(outside, 'full.txt'), 'utf8')).toBe('out\n');
    expect(await requestsOf(c, full)).toEqual([]);
  }, 180_000);

  it('a model change reaches the next model request of the resumed Codex thread', async () => {
    const { app, c, requests, runCommand } = await scriptedBaton();
    const threadId = ok<{ threadId: string }>(
      await c.command('thread.create', { cwd: workspace(), model: 'baton-model-a' }),
    ).threadId;
    await runCommand(threadId, 'true');
    expect(requests.at(-1)!.body.model).toBe('baton-model-a');
    // The idle reaper releases the Codex process: the next run must resume the thread.
    const pid = app.codex.adapter(threadId).pid;
    expect(app.codex.reapIdle()).toBe(1);
    ok(await c.command('thread.settings.update', { threadId: ThreadId.parse(threadId), model: 'baton-model-b' }));
    const before = requests.length;
    await runCommand(threadId, 'true');
    expect(requests.slice(before).map((r) => r.body.model)).toEqual(['baton-model-b', 'baton-model-b']);
    // Another process, the same conversation: the first run's message is in what the model was sent.
    expect(app.codex.adapter(threadId).pid).not.toBe(pid);
    expect(JSON.stringify(requests.at(-1)!.body.input).match(/run: true/g)).toHaveLength(2);
  }, 180_000);
});
