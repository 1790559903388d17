import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { RequestError } from '@agentclientprotocol/sdk';
import type * as acp from '@agentclientprotocol/sdk';
import { confined } from './acp-client-files.js';

/** One terminal: a real child process in the thread's cwd, its output kept up to the agent's limit. */
interface Terminal {
  child: ChildProcess;
  output: string;
  truncated: boolean;
  limit: number | null;
  exit: acp.TerminalExitStatus | null;
  exited: Promise<acp.TerminalExitStatus>;
}

/** Output kept when the agent sets no byte limit. */
const DEFAULT_LIMIT = 1_000_000;

/**
 * The `terminal/*` methods: each terminal is a real child process (its own process group,
 * so a command's children go with it), run in the thread's cwd or a folder inside it,
 * killed on `terminal/kill`, `terminal/release`, an interrupt (`killAll`) and shutdown.
 */
export class AcpTerminals {
  private readonly terminals = new Map<string, Terminal>();

  constructor(
    private readonly cwd: () => string,
    private readonly env: Record<string, string>,
  ) {}

  create(params: acp.CreateTerminalRequest): acp.CreateTerminalResponse {
    const root = this.cwd();
    const cwd = params.cwd ? confined(root, params.cwd) : root;
    const env: Record<string, string> = { ...this.env };
    for (const v of params.env ?? []) env[v.name] = v.value;
    // A command with no args is a shell line (agents send `bash -lc ...` or a plain line).
    const child = params.args?.length
      ? spawn(params.command, params.args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(params.command, { cwd, env, detached: true, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const terminal: Terminal = {
      child,
      output: '',
      truncated: false,
      limit: params.outputByteLimit ?? DEFAULT_LIMIT,
      exit: null,
      exited: new Promise((resolve) => {
        child.once('close', (code, signal) => resolve((terminal.exit = { exitCode: code, signal })));
        child.once('error', (error) => {
          terminal.output += String(error);
          resolve((terminal.exit = { exitCode: 127, signal: null }));
        });
      }),
    };
    const take = (chunk: Buffer) => {
      terminal.output += String(chunk);
      const limit = terminal.limit ?? DEFAULT_LIMIT;
      if (Buffer.byteLength(terminal.output) > limit) {
        // Keep the end (what the agent most needs), cut at a character boundary.
        terminal.output = Buffer.from(terminal.output)
          .subarray(-limit)
          .toString('utf8')
          .replace(/^\uFFFD/, '');
        terminal.truncated = true;
      }
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    const terminalId = `term_${randomUUID()}`;
    this.terminals.set(terminalId, terminal);
    return { terminalId };
  }

  output(params: acp.TerminalOutputRequest): acp.TerminalOutputResponse {
    const t = this.get(params.terminalId);
    return { output: t.output, truncated: t.truncated, ...(t.exit ? { exitStatus: t.exit } : {}) };
  }

  async waitForExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse> {
    return await this.get(params.terminalId).exited;
  }

  kill(params: acp.KillTerminalRequest): acp.KillTerminalResponse {
    this.stop(this.get(params.terminalId));
    return {};
  }

  release(params: acp.ReleaseTerminalRequest): acp.ReleaseTerminalResponse {
    const t = this.get(params.terminalId);
    this.stop(t);
    this.terminals.delete(params.terminalId);
    return {};
  }

  /** Interrupt and shutdown: every terminal's process is killed; resolves once they are gone. */
  async killAll(): Promise<void> {
    const all = [...this.terminals.values()];
    all.forEach((t) => this.stop(t));
    await Promise.all(all.map((t) => t.exited));
  }

  /** The pids of terminals still running (tests check none is left). */
  get running(): number[] {
    return [...this.terminals.values()].filter((t) => !t.exit && t.child.pid).map((t) => t.child.pid!);
  }

  private get(terminalId: string): Terminal {
    const t = this.terminals.get(terminalId);
    if (!t) throw RequestError.invalidParams({ terminalId }, `no terminal ${terminalId}`);
    return t;
  }

  private stop(t: Terminal): void {
    if (t.exit || !t.child.pid) return;
    try {
      process.kill(-t.child.pid, 'SIGKILL');
    } catch {
      t.child.kill('SIGKILL');
    }
  }
}
