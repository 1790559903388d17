import { parseArgs } from 'node:util';
import { toErrorInfo } from '../domain/errors.js';
import { serve } from './serve.js';
import { demo } from './demo.js';
import { clientCommand } from './client-commands.js';

const usage = `usage: baton <command> [options]

  serve        run Baton (what npm start runs)          --host --port --data-dir --token --model scripted
  demo         a short conversation through the real Codex and the offline model, printed as it streams
  threads      list threads                              --url --token
  send         send a message                            <threadId> <text> [--mode auto|steer_active|queue_after_active|...]
  tail         stream a thread's events                  <threadId>
  approve      answer a pending request                  <requestId> [--decision accept|decline|cancel]
  interrupt    interrupt a run                           <runId> [--hold]
  rollback     roll a thread back to a run               <threadId> <runOrdinal>

Client commands find the server at --url (BATON_URL, default http://127.0.0.1:7420) with --token
(BATON_TOKEN, default the token stored in the data dir).`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      host: { type: 'string' }, port: { type: 'string' }, 'data-dir': { type: 'string' }, token: { type: 'string' }, model: { type: 'string' },
      url: { type: 'string' }, mode: { type: 'string' }, decision: { type: 'string' }, hold: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...args] = positionals;
  const flags = values as Record<string, string | undefined>;
  if (!command || values.help) {
    console.log(usage);
    return;
  }
  if (command === 'serve') return serve(flags);
  if (command === 'demo') return demo();
  await clientCommand(command, args, { ...flags, hold: values.hold ? 'true' : undefined });
}

main().catch((error) => {
  // One clear line, not a stack trace.
  const info = toErrorInfo(error);
  console.error(`baton: ${info.code === 'internal' ? '' : `${info.code}: `}${info.message}`);
  process.exit(1);
});
