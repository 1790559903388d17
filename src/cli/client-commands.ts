import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { BatonClient } from '../client/baton-client.js';
import { BatonError, parseOrThrow } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import { RunId, RuntimeRequestId, ThreadId } from '../domain/ids.js';
import { ApprovalDecision, DispatchMode, ProviderKind } from '../domain/statuses.js';
import { parseArgument, parseOptionalArgument, UsageError } from './arguments.js';
import { accepted, MessageSent, resultOf, RolledBack, ThreadCreated, ThreadsSnapshot } from './command-results.js';
import { eventDescriber } from './describe-event.js';
import { describeThread, ThreadHistory } from './describe-thread.js';
import { watchThread } from './run-watch.js';

/** One client command of the CLI, its arguments parsed into the contract's types. */
type ClientCommand =
  | { name: 'threads' }
  | { name: 'new'; cwd: string; title: string | undefined; provider: ProviderKind | undefined }
  | { name: 'send'; threadId: ThreadId; text: string; dispatchMode: DispatchMode | undefined; wait: boolean }
  | { name: 'tail'; threadId: ThreadId }
  | { name: 'approve'; requestId: RuntimeRequestId; decision: ApprovalDecision }
  | { name: 'interrupt'; runId: RunId; holdQueue: boolean }
  | { name: 'rollback'; threadId: ThreadId; runOrdinal: number };

type Flags = Record<string, string | undefined>;

const RunOrdinal = z.string().regex(/^\d+$/, 'a run ordinal is a whole number').transform(Number);

/** Reads the command line before anything is sent: a bad argument never reaches the server. */
function parseClientCommand(command: string, args: string[], flags: Flags): ClientCommand {
  const need = (n: number, what: string) => {
    if (args.length < n) throw new UsageError(`${command} needs ${what}`);
  };
  switch (command) {
    case 'threads':
      return { name: 'threads' };
    case 'new':
      need(1, '<cwd>');
      return {
        name: 'new',
        cwd: resolve(args[0]!),
        title: args[1] || undefined,
        provider: parseOptionalArgument(ProviderKind, flags.provider, 'new --provider'),
      };
    case 'send':
      need(2, '<threadId> <text>');
      return {
        name: 'send',
        threadId: parseArgument(ThreadId, args[0], 'send <threadId>'),
        text: args.slice(1).join(' '),
        dispatchMode: parseOptionalArgument(DispatchMode, flags.mode, 'send --mode'),
        wait: flags.wait === 'true',
      };
    case 'tail':
      need(1, '<threadId>');
      return { name: 'tail', threadId: parseArgument(ThreadId, args[0], 'tail <threadId>') };
    case 'approve':
      need(1, '<requestId>');
      return {
        name: 'approve',
        requestId: parseArgument(RuntimeRequestId, args[0], 'approve <requestId>'),
        decision: parseArgument(ApprovalDecision, flags.decision ?? 'accept', 'approve --decision'),
      };
    case 'interrupt':
      need(1, '<runId>');
      return {
        name: 'interrupt',
        runId: parseArgument(RunId, args[0], 'interrupt <runId>'),
        holdQueue: flags.hold === 'true',
      };
    case 'rollback':
      need(2, '<threadId> <runOrdinal>');
      return {
        name: 'rollback',
        threadId: parseArgument(ThreadId, args[0], 'rollback <threadId>'),
        runOrdinal: parseArgument(RunOrdinal, args[1], 'rollback <runOrdinal>'),
      };
    default:
      throw new UsageError(`unknown command "${command}" (see baton --help)`);
  }
}

function tokenFrom(flags: Flags): string {
  const token = flags.token ?? process.env.BATON_TOKEN;
  if (token) return token;
  const file = join(resolve(flags['data-dir'] ?? process.env.BATON_DATA_DIR ?? '.baton'), 'token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new BatonError(
    'invalid_command',
    'no token: pass --token, set BATON_TOKEN, or run from the folder whose .baton/token the server wrote',
  );
}

/** The client side of the CLI: one command against a running Baton. */
export async function clientCommand(command: string, args: string[], flags: Flags): Promise<void> {
  const parsed = parseClientCommand(command, args, flags);
  const url = flags.url ?? process.env.BATON_URL ?? 'http://127.0.0.1:7420';
  const client = await BatonClient.connect(url, tokenFrom(flags), {
    // Those that follow a thread go on across a restart of Baton.
    reconnectAfterServerClose: parsed.name === 'tail' || (parsed.name === 'send' && parsed.wait),
  }).catch((error: Error) => {
    throw new BatonError('provider_error', `cannot reach Baton at ${url}: ${error.message}`);
  });
  try {
    await run(client, parsed);
  } finally {
    client.close();
  }
}

/**
 * Prints the thread's conversation so far, then its events as they come, until Ctrl-C.
 * Across a restart of Baton its client connects again (`reconnectAfterServerClose`) and goes
 * on after the last event it printed; a Baton whose event log is another one (another data
 * dir at the address) cannot place that event, and ends it with the reason.
 */
function follow(client: BatonClient, threadId: ThreadId): Promise<never> {
  return new Promise<never>((_, reject) => {
    client.socket.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') console.error('Baton closed the connection; connecting again...');
    });
    const lost = (error: Error) =>
      reject(new BatonError('not_found', `stopped following ${threadId}: ${error.message}`));
    // Events that come before the history is printed (in the same read as the ack) wait for it.
    let early: DomainEvent[] | null = [];
    const describeEvent = eventDescriber();
    const write = (event: DomainEvent) => {
      const line = describeEvent(event);
      if (line) process.stdout.write(line);
    };
    const print = (event: DomainEvent) => (early ? early.push(event) : write(event));
    client
      .subscribe({ stream: 'thread', threadId }, print, lost)
      .then(({ snapshot }) => {
        const history = parseOrThrow(ThreadHistory, snapshot, 'internal', 'the thread snapshot');
        process.stdout.write(describeThread(history));
        console.error(`following ${threadId} (Ctrl-C to stop)`);
        early?.forEach(write);
        early = null;
      })
      .catch(reject);
  });
}

async function run(client: BatonClient, command: ClientCommand): Promise<void> {
  switch (command.name) {
    case 'threads': {
      const res = await client.query({ type: 'snapshot', request: { stream: 'threads' } });
      if (!res.ok)
        throw new BatonError(res.error?.code ?? 'internal', res.error?.message ?? 'the threads query was refused');
      const { threads } = parseOrThrow(ThreadsSnapshot, res.result, 'internal', 'the threads snapshot').snapshot;
      if (threads.length === 0) console.log('no threads yet');
      for (const t of threads)
        console.log(
          `${t.id}  ${t.status.padEnd(8)} runs=${t.runCount} ${t.activeRunId ? `active=${t.activeRunId} (${t.activeRunStatus})` : 'idle'}  ${t.title}  ${t.workspace.cwd}`,
        );
      return;
    }
    case 'new': {
      const result = resultOf(
        await client.command('thread.create', {
          cwd: command.cwd,
          ...(command.title ? { title: command.title } : {}),
          ...(command.provider ? { provider: command.provider } : {}),
        }),
        ThreadCreated,
        'thread.create',
      );
      console.log(result.threadId);
      return;
    }
    case 'send': {
      console.error('sending...');
      const { threadId, text, dispatchMode } = command;
      const watch = command.wait ? await watchThread(client, threadId) : null;
      const result = resultOf(
        await client.command('thread.message.send', { threadId, text, ...(dispatchMode ? { dispatchMode } : {}) }),
        MessageSent,
        'thread.message.send',
      );
      const sent = `${result.dispatched}: run ${result.runId} (message ${result.messageId})`;
      if (!watch) return console.log(sent);
      // With --wait the thread's events go to stdout until the run ends; one that did not complete exits 1.
      console.error(sent);
      if ((await watch.end(result.runId)) !== 'completed') process.exitCode = 1;
      return;
    }
    case 'tail':
      return follow(client, command.threadId);
    case 'approve': {
      accepted(
        await client.command('runtime-request.respond', { requestId: command.requestId, decision: command.decision }),
      );
      console.log(`${command.decision}: ${command.requestId}`);
      return;
    }
    case 'interrupt': {
      accepted(await client.command('run.interrupt', { runId: command.runId, holdQueue: command.holdQueue }));
      console.log(`interrupt requested for ${command.runId} (the run ends when the provider confirms)`);
      return;
    }
    case 'rollback': {
      console.error(`restoring the files of run ${command.runOrdinal}...`);
      const result = resultOf(
        await client.command('rollback.toRun', { threadId: command.threadId, runOrdinal: command.runOrdinal }),
        RolledBack,
        'rollback.toRun',
      );
      console.log(`rolled back to run ${command.runOrdinal}; files restored: ${result.changedPaths.length}`);
      return;
    }
  }
}
