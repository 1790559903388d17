import { EventEmitter } from 'node:events';
import { constants } from 'node:os';
import { Readable, Writable } from 'node:stream';
import { LineSplitter, type LineChannel } from '../transport/line-channel.js';
import type { AgentProcess } from './claude-process.js';

/**
 * The agent process the SDK talks to, made of a line channel: its stdin lines go to the
 * channel, the channel's lines come out of its stdout, and the channel's close is the
 * process's exit. A recording is a RecordingChannel over the real process; a replay is a
 * ReplayChannel; the SDK (and the adapter) see a process either way.
 */

const isSignal = (name: string): name is NodeJS.Signals => name in constants.signals;

/** How a channel's close reads as a process's end (the words ChildProcessChannel and transcripts use). */
export function exitOf(reason: string): { code: number | null; signal: NodeJS.Signals | null; error: string | null } {
  const signal = /^killed by (SIG[A-Z0-9]+)/.exec(reason)?.[1];
  if (signal && isSignal(signal)) return { code: null, signal, error: null };
  const exited = /^exited with code (-?\d+)/.exec(reason);
  if (exited) return { code: Number(exited[1]), signal: null, error: null };
  // Baton closed its stdin: the agent ends its session and exits cleanly.
  if (reason === 'closed by Baton') return { code: 0, signal: null, error: null };
  // A failure (a replay that diverged says `failed: why`): the process errs with why.
  return { code: 1, signal: null, error: reason.replace(/^failed: /, '') };
}

/** What the channel cannot give: how the process is signalled, and its pid and stderr if it is real. */
export interface ProcessControl {
  kill(signal: NodeJS.Signals): void;
  pid?: number | undefined;
  stderr?: Readable | null;
}

export class ChannelProcess extends EventEmitter implements AgentProcess {
  readonly stdin: Writable;
  readonly stdout = new Readable({ read: () => undefined });
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  killed = false;
  private ended = false;

  constructor(
    channel: LineChannel,
    private readonly control: ProcessControl,
  ) {
    super();
    const sent: Promise<void>[] = [];
    const splitter = new LineSplitter((line) => {
      if (line.trim()) sent.push(channel.send(line));
    });
    this.stdin = new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        splitter.push(String(chunk));
        Promise.all(sent.splice(0)).then(() => done(), done);
      },
      final(done) {
        splitter.flush();
        channel.close();
        done();
      },
    });
    channel.onLine((line) => {
      if (!this.ended) this.stdout.push(`${line}\n`);
    });
    channel.onClose((reason) => this.exit(reason));
  }

  get pid(): number | undefined {
    return this.control.pid;
  }

  get stderr(): Readable | null {
    return this.control.stderr ?? null;
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    this.killed = true;
    this.control.kill(signal);
    return true;
  }

  /** The end: stdout ends, then `exit` (and `error`, for a failure), as a process that died. */
  private exit(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    const end = exitOf(reason);
    this.exitCode = end.code;
    this.signalCode = end.signal;
    this.stdout.push(null);
    this.emit('exit', end.code, end.signal);
    // After the exit: the SDK keeps the last of the two as the query's error, and this one says why.
    if (end.error && this.listenerCount('error') > 0) this.emit('error', new Error(end.error));
  }
}
