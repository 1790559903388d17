import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BatonClient, type CommandAck } from '../client/baton-client.js';
import { BatonError } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { ThreadShell } from '../domain/projections.js';
import { describeEvent } from './describe-event.js';

function tokenFrom(flags: Record<string, string | undefined>): string {
  const token = flags.token ?? process.env.BATON_TOKEN;
  if (token) return token;
  const file = join(resolve(flags['data-dir'] ?? process.env.BATON_DATA_DIR ?? '.baton'), 'token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new BatonError('invalid_command', 'no token: pass --token, set BATON_TOKEN, or run from the folder whose .baton/token the server wrote');
}

function ok(ack: CommandAck): Record<string, unknown> {
  if (!ack.ok) throw new BatonError(ack.error.code, ack.error.message);
  return ack.result;
}

/** The client side of the CLI: one command against a running Baton. */
export async function clientCommand(command: string, args: string[], flags: Record<string, string | undefined>): Promise<void> {
  const url = flags.url ?? process.env.BATON_URL ?? 'http://127.0.0.1:7420';
  const need = (n: number, what: string) => {
    if (args.length < n) throw new BatonError('invalid_command', `${command} needs ${what}`);
  };
  const client = await BatonClient.connect(url, tokenFrom(flags)).catch((error: Error) => {
    throw new BatonError('provider_error', `cannot reach Baton at ${url}: ${error.message}`);
  });
  try {
    switch (command) {
      case 'threads': {
        const res = await client.query({ type: 'snapshot', request: { stream: 'threads' } });
        const threads = ((res.result as { snapshot: { threads: ThreadShell[] } }).snapshot.threads ?? []) as ThreadShell[];
        if (threads.length === 0) console.log('no threads yet');
        for (const t of threads) console.log(`${t.id}  ${t.status.padEnd(8)} runs=${t.runCount} ${t.activeRunId ? `active=${t.activeRunId} (${t.activeRunStatus})` : 'idle'}  ${t.title}  ${t.workspace.cwd}`);
        return;
      }
      case 'new': {
        need(1, '<cwd>');
        const result = ok(await client.command('thread.create', { cwd: resolve(args[0]!), ...(args[1] ? { title: args[1] } : {}) }));
        console.log(result.threadId);
        return;
      }
      case 'send': {
        need(2, '<threadId> <text>');
        console.error('sending...');
        const result = ok(await client.command('thread.message.send', { threadId: args[0]! as never, text: args.slice(1).join(' '), ...(flags.mode ? { dispatchMode: flags.mode as never } : {}) }));
        console.log(`${result.dispatched}: run ${result.runId} (message ${result.messageId})`);
        return;
      }
      case 'tail': {
        need(1, '<threadId>');
        await client.subscribe({ stream: 'thread', threadId: args[0]! as never }, (event: DomainEvent) => {
          const line = describeEvent(event);
          if (line) process.stdout.write(line);
        });
        console.error(`following ${args[0]} (Ctrl-C to stop)`);
        await new Promise(() => undefined);
        return;
      }
      case 'approve': {
        need(1, '<requestId>');
        ok(await client.command('runtime-request.respond', { requestId: args[0]! as never, decision: (flags.decision ?? 'accept') as never }));
        console.log(`${flags.decision ?? 'accept'}: ${args[0]}`);
        return;
      }
      case 'interrupt': {
        need(1, '<runId>');
        ok(await client.command('run.interrupt', { runId: args[0]! as never, holdQueue: flags.hold === 'true' }));
        console.log(`interrupt requested for ${args[0]} (the run ends when the provider confirms)`);
        return;
      }
      case 'rollback': {
        need(2, '<threadId> <runOrdinal>');
        console.error(`restoring the files of run ${args[1]}...`);
        const result = ok(await client.command('rollback.toRun', { threadId: args[0]! as never, runOrdinal: Number(args[1]) }));
        console.log(`rolled back to run ${args[1]}; files restored: ${(result.changedPaths as string[]).length}`);
        return;
      }
      default:
        throw new BatonError('invalid_command', `unknown command "${command}" (see baton --help)`);
    }
  } finally {
    if (command !== 'tail') client.close();
  }
}
