import { parseArgs } from 'node:util';
import { toErrorInfo } from '../domain/errors.js';
import { clientCommand } from './client-commands.js';
import { parseOptionalArgument, UsageError } from './arguments.js';

const usage = `usage: baton <command> [options]

  serve        run Baton (what npm start runs)          --host --port --data-dir --token --model scripted
  demo         an offline conversation, printed live     [--provider codex|claude]
  threads      list threads                              --url --token
  new          create a thread on a workspace            <cwd> [title] [--provider codex|claude]
  send         send a message                            <threadId> <text> [--mode auto|steer_active|queue_after_active|...] [--wait]
  tail         print a thread so far, then follow it     <threadId>
  approve      answer a pending request                  <requestId> [--decision accept|acceptForSession|decline|cancel]
  interrupt    interrupt a run                           <runId> [--hold]
  rollback     roll a thread back to a run               <threadId> <runOrdinal>

Client commands find the server at --url (BATON_URL, default http://127.0.0.1:7420) with --token
(BATON_TOKEN, default the token stored in the data dir).`;

const options = {
  host: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  token: { type: 'string' },
  model: { type: 'string' },
  url: { type: 'string' },
  mode: { type: 'string' },
  decision: { type: 'string' },
  provider: { type: 'string' },
  hold: { type: 'boolean' },
  wait: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const clientOptions = ['url', 'token', 'data-dir'];
/** The options each command reads: any other is refused, never quietly ignored. */
const optionsOf: Record<string, readonly string[]> = {
  serve: ['host', 'port', 'data-dir', 'token', 'model'],
  demo: ['provider'],
  threads: clientOptions,
  new: [...clientOptions, 'provider'],
  send: [...clientOptions, 'mode', 'wait'],
  tail: clientOptions,
  approve: [...clientOptions, 'decision'],
  interrupt: [...clientOptions, 'hold'],
  rollback: clientOptions,
};

/** A UsageError for an option the command does not read (an unknown command is refused by its own path). */
function checkOptions(command: string, given: Record<string, unknown>): void {
  const allowed = optionsOf[command];
  if (!allowed) return;
  const stray = Object.keys(given).filter((name) => given[name] !== undefined && !allowed.includes(name));
  if (stray.length)
    throw new UsageError(`${command} does not take ${stray.map((name) => `--${name}`).join(', ')} (see baton --help)`);
}

/** The command line, or a UsageError for an option Baton does not know or one without its value. */
function readCommandLine() {
  try {
    return parseArgs({ allowPositionals: true, options });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

async function main(): Promise<void> {
  const { positionals, values } = readCommandLine();
  const [command, ...args] = positionals;
  const { hold, wait, help, ...strings } = values;
  const flags: Record<string, string | undefined> = strings;
  if (!command || help) {
    console.log(usage);
    return;
  }
  checkOptions(command, { ...flags, hold, wait });
  // Loaded on demand: the client commands need no runtime, store or provider.
  if (command === 'serve') return (await import('./serve.js')).serve(flags);
  if (command === 'demo') {
    const { demo, DemoProvider } = await import('./demo.js');
    return demo(parseOptionalArgument(DemoProvider, flags.provider, 'demo --provider'));
  }
  await clientCommand(command, args, { ...flags, hold: hold ? 'true' : undefined, wait: wait ? 'true' : undefined });
}

main().catch((error) => {
  // One clear line, not a stack trace.
  const info = toErrorInfo(error);
  console.error(`baton: ${info.code === 'internal' ? '' : `${info.code}: `}${info.message}`);
  // A command line Baton cannot act on exits 2 (as usage errors do); a refusal or failure, 1.
  process.exit(error instanceof UsageError ? 2 : 1);
});
