import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { BatonClient, type CommandAck } from '../client/baton-client.js';
import { loadConfig } from '../config.js';
import { BatonError } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { ModelTurn, Responder } from '../providers/model/scripted-model-server.js';
import { startBaton } from '../server/baton-app.js';
import { describeEvent } from './describe-event.js';

/** What the offline model does in the demo, one entry per model request. */
const script: ModelTurn[] = [
  { kind: 'text', text: 'Hello! I am Codex, running offline against Baton\'s scripted model.', delayMs: 40 },
  { kind: 'exec', command: 'echo "hello from the demo" > hello.txt', escalated: true, justification: 'write hello.txt' },
  { kind: 'text', text: 'I wrote hello.txt for you.', delayMs: 40 },
  { kind: 'hang' },
];

const demoResponder: Responder = (_request, index) => script[index] ?? { kind: 'text', text: 'That is all for the demo.' };

/**
 * `baton demo`: a short conversation through the real Codex and the offline model, in a
 * temporary workspace, printing the turn items as they stream: a reply, a command
 * approval, an interrupt, and a rollback.
 */
export async function demo(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'baton-demo-data-'));
  const workspace = mkdtempSync(join(tmpdir(), 'baton-demo-ws-'));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const config = loadConfig({}, { dataDir, port: 0, model: 'scripted' });
  say('Starting Baton with the offline scripted model...');
  const app = await startBaton(config, pino({ level: 'warn' }, pino.destination(2)), { responder: demoResponder });
  const client = await BatonClient.connect(app.url, app.token);
  const ok = (ack: CommandAck) => {
    if (!ack.ok) throw new BatonError(ack.error.code, ack.error.message);
    return ack.result;
  };
  try {
    say(`Baton at ${app.url}; workspace ${workspace}`);
    const { threadId } = ok(await client.command('thread.create', { cwd: workspace, title: 'Demo' })) as { threadId: string };

    // Everything that happens on the thread, as it is committed.
    const waiters: { test: (e: DomainEvent) => boolean; resolve: (e: DomainEvent) => void }[] = [];
    await client.subscribe({ stream: 'thread', threadId: threadId as never }, (event) => {
      const line = describeEvent(event);
      if (line) process.stdout.write(line);
      for (const w of [...waiters]) if (w.test(event)) (waiters.splice(waiters.indexOf(w), 1), w.resolve(event));
    });
    const next = (test: (e: DomainEvent) => boolean, what: string) =>
      new Promise<DomainEvent>((resolve, reject) => {
        const timer = setTimeout(() => reject(new BatonError('provider_error', `the demo waited too long for ${what}`)), 60_000);
        waiters.push({ test, resolve: (e) => (clearTimeout(timer), resolve(e)) });
      });
    const runEnds = (runId: string) => next((e) => e.type === 'run.terminal' && (e.payload as { runId: string }).runId === runId, `run ${runId} to end`);

    say('\n1. A reply, streamed');
    let run = ok(await client.command('thread.message.send', { threadId: threadId as never, text: 'Say hello' })) as { runId: string };
    await runEnds(run.runId);

    say('\n2. A command that needs approval');
    const opened = next((e) => e.type === 'runtime-request.opened', 'an approval request');
    run = ok(await client.command('thread.message.send', { threadId: threadId as never, text: 'Create hello.txt' })) as { runId: string };
    const request = (await opened).payload as { request: { id: string } };
    say('  (the demo approves it)');
    ok(await client.command('runtime-request.respond', { requestId: request.request.id as never, decision: 'accept' }));
    await runEnds(run.runId);
    say(`  hello.txt exists: ${existsSync(join(workspace, 'hello.txt'))}`);

    say('\n3. An interrupt');
    run = ok(await client.command('thread.message.send', { threadId: threadId as never, text: 'Think about it for a long time' })) as { runId: string };
    await next((e) => e.type === 'run.status-changed' && (e.payload as { to: string }).to === 'running', 'the run to start');
    ok(await client.command('run.interrupt', { runId: run.runId as never }));
    await runEnds(run.runId);

    say('\n4. A rollback to run 1');
    ok(await client.command('rollback.toRun', { threadId: threadId as never, runOrdinal: 1 }));
    say(`  hello.txt exists: ${existsSync(join(workspace, 'hello.txt'))}`);
    say('\nDone.');
  } finally {
    client.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}
