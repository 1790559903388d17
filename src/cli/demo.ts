import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { z } from 'zod';
import { BatonClient } from '../client/baton-client.js';
import { loadConfig } from '../config.js';
import { BatonError } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { RunId } from '../domain/ids.js';
import type { ModelTurn, Responder } from '../providers/model/scripted-model-server.js';
import { startBaton, type StartOptions } from '../app/baton-app.js';
import type { Config } from '../config.js';
import { accepted, MessageSent, resultOf, ThreadCreated } from './command-results.js';
import { claudeDemoPrompts, startClaudeDemoModel } from './demo-claude.js';
import { eventDescriber } from './describe-event.js';

/** What the offline model does in the demo, one entry per model request. */
const script: ModelTurn[] = [
  { kind: 'text', text: "Hello! I am Codex, running offline against Baton's scripted model.", delayMs: 40 },
  {
    kind: 'exec',
    command: 'echo "hello from the demo" > hello.txt',
    escalated: true,
    justification: 'write hello.txt',
  },
  { kind: 'text', text: 'I wrote hello.txt for you.', delayMs: 40 },
  { kind: 'hang' },
];

const demoResponder: Responder = (_request, index) =>
  script[index] ?? { kind: 'text', text: 'That is all for the demo.' };

/** The agents the demo can run. */
export const DemoProvider = z.enum(['codex', 'claude']);
export type DemoProvider = z.infer<typeof DemoProvider>;

/** How Baton is started for a provider's demo, and what to stop after it. */
async function demoSetup(
  provider: DemoProvider,
  dataDir: string,
): Promise<{ config: Config; options: StartOptions; stop: () => Promise<void> }> {
  if (provider === 'codex')
    return {
      config: loadConfig({}, { dataDir, port: 0, model: 'scripted' }),
      options: { responder: demoResponder },
      stop: async () => undefined,
    };
  // The demo's own scripted Messages-API model, given to Baton as Claude's endpoint (Codex keeps its offline one).
  const model = await startClaudeDemoModel();
  return {
    config: loadConfig({}, { dataDir, port: 0, claudeBaseUrl: model.baseUrl }),
    options: {},
    stop: () => model.stop(),
  };
}

/**
 * `baton demo [--provider codex|claude]`: a short conversation through the real agent
 * (Codex, or Claude through the Agent SDK) and an offline model, in a temporary workspace,
 * printing the turn items as they stream: a reply, a command approval, an interrupt, and a
 * rollback.
 */
export async function demo(provider: DemoProvider = 'codex'): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'baton-demo-data-'));
  const workspace = mkdtempSync(join(tmpdir(), 'baton-demo-ws-'));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const setup = await demoSetup(provider, dataDir);
  say(
    `Starting Baton with the offline scripted model (the real ${provider === 'claude' ? 'Claude agent' : 'Codex'})...`,
  );
  const app = await startBaton(setup.config, pino({ level: 'warn' }, pino.destination(2)), setup.options).catch(
    async (error: unknown) => {
      await setup.stop();
      throw error;
    },
  );
  const client = await BatonClient.connect(app.url, app.token);
  try {
    say(`Baton at ${app.url}; workspace ${workspace}`);
    const { threadId } = resultOf(
      await client.command('thread.create', { cwd: workspace, title: 'Demo', provider }),
      ThreadCreated,
      'thread.create',
    );
    const send = async (text: string) =>
      resultOf(await client.command('thread.message.send', { threadId, text }), MessageSent, 'thread.message.send');

    // Everything that happens on the thread, as it is committed. A waiter picks what it
    // waits for out of an event (undefined: not this one).
    const waiters: ((e: DomainEvent) => boolean)[] = [];
    const describeEvent = eventDescriber();
    await client.subscribe({ stream: 'thread', threadId }, (event) => {
      const line = describeEvent(event);
      if (line) process.stdout.write(line);
      for (const w of [...waiters]) if (w(event)) waiters.splice(waiters.indexOf(w), 1);
    });
    const next = <T>(pick: (e: DomainEvent) => T | undefined, what: string) =>
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new BatonError('provider_error', `the demo waited too long for ${what}`)),
          60_000,
        );
        waiters.push((e) => {
          const picked = pick(e);
          if (picked === undefined) return false;
          clearTimeout(timer);
          resolve(picked);
          return true;
        });
      });
    const runEnds = (runId: RunId) =>
      next((e) => (e.type === 'run.terminal' && e.payload.runId === runId ? e : undefined), `run ${runId} to end`);

    say('\n1. A reply, streamed');
    let run = await send(claudeDemoPrompts.hello);
    await runEnds(run.runId);

    say('\n2. A command that needs approval');
    const opened = next(
      (e) => (e.type === 'runtime-request.opened' ? e.payload.request : undefined),
      'an approval request',
    );
    run = await send(claudeDemoPrompts.write);
    const request = await opened;
    say('  (the demo approves it)');
    accepted(await client.command('runtime-request.respond', { requestId: request.id, decision: 'accept' }));
    await runEnds(run.runId);
    say(`  hello.txt exists: ${existsSync(join(workspace, 'hello.txt'))}`);

    say('\n3. An interrupt');
    run = await send(claudeDemoPrompts.think);
    await next(
      (e) => (e.type === 'run.status-changed' && e.payload.to === 'running' ? e : undefined),
      'the run to start',
    );
    accepted(await client.command('run.interrupt', { runId: run.runId }));
    await runEnds(run.runId);

    say('\n4. A rollback to run 1');
    accepted(await client.command('rollback.toRun', { threadId, runOrdinal: 1 }));
    say(`  hello.txt exists: ${existsSync(join(workspace, 'hello.txt'))}`);
    say('\nDone.');
  } finally {
    client.close();
    await app.stop();
    await setup.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}
