import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { useApiBatons } from '../support/api-batons.js';
import { ok } from '../support/thread-client.js';

/**
 * A fork's own workspace through the public Socket.IO API, with the real Codex: the fork
 * is written from its fork point's checkpoint into a new folder under the data dir, and
 * what the fork's agent writes there never reaches its source's workspace (nor the other
 * way round). Real Baton, real agent, scripted model.
 */
const token = 'fork-workspace-api-token-0123456789';
const api = useApiBatons({ token, prefix: 'baton-fork-ws-api', agentComms: ['codex'] });
const { workspace, onCleanup } = api;

describe("a fork's own workspace, through the Socket.IO API (the real Codex)", () => {
  it("the fork's agent writes in its own workspace, made from the fork point; the source's never gets it", async () => {
    const responses = await new ScriptedModelServer().start();
    onCleanup(() => responses.stop());
    const app = await api.baton({ codexBaseUrl: responses.baseUrl });
    const ws = workspace();
    writeFileSync(join(ws, 'a.txt'), 'before\n');
    const source = await api.create(app.url, { cwd: ws, provider: 'codex' });
    const write = (command: string) => responses.enqueue({ kind: 'exec', command }, { kind: 'text', text: 'done' });

    write('echo one > one.txt');
    const first = await source.send('write one');
    expect(await source.ended(first)).toBe('completed');
    write('echo after > after.txt && echo changed > a.txt');
    const second = await source.send('write after');
    expect(await source.ended(second)).toBe('completed');

    const client = await BatonClient.connect(app.url, token);
    onCleanup(() => client.close());
    const forked = ok<{ threadId: string; cwd: string }>(
      await client.command('thread.fork', {
        sourceThreadId: source.threadId,
        source: { type: 'run', threadId: source.threadId, runId: first },
      }),
    );
    expect(forked.cwd).toMatch(new RegExp(`/workspaces/${forked.threadId}$`));
    const fork = await api.open(app.url, forked.threadId);
    // The fork's agent works in the fork's own folder: checked for leftovers as the source's is.
    api.watchWorkspace(forked.cwd);
    write('echo fork > fork.txt');
    const forkRun = await fork.send('write fork');
    expect(await fork.ended(forkRun)).toBe('completed');

    // A native Codex fork, told the fork's folder: its command ran there.
    expect(fork.events.find((e) => e.type === 'thread.fork-resolved')?.payload).toMatchObject({
      strategy: 'native_fork',
    });
    const items = (await fork.snapshot()).turnItems as { kind: string; data?: Record<string, unknown> }[];
    const command = items.find((i) => i.kind === 'tool_call');
    expect(command?.data).toMatchObject({ command: expect.stringContaining('fork.txt'), cwd: forked.cwd });
    expect(readdirSync(forked.cwd).sort()).toEqual(['a.txt', 'fork.txt', 'one.txt']);
    expect(readFileSync(join(forked.cwd, 'a.txt'), 'utf8')).toBe('before\n');
    expect(readFileSync(join(forked.cwd, 'fork.txt'), 'utf8')).toBe('fork\n');
    expect(existsSync(join(ws, 'fork.txt'))).toBe(false);
    expect(readdirSync(ws).sort()).toEqual(['a.txt', 'after.txt', 'one.txt']);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('changed\n');
  }, 120_000);
});
