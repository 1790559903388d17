import { StringDecoder } from 'node:string_decoder';
import { Transform, Writable, type Readable } from 'node:stream';
import { frameLineLogger, type FrameLogging } from '../transport/frame-logged-channel.js';
import { LineSplitter } from '../transport/line-channel.js';
import type { AgentProcess } from './claude-process.js';

type ExitListener = (code: number | null, signal: NodeJS.Signals | null) => void;
type ErrorListener = (error: Error) => void;

/**
 * The agent process with every stream-json line both ways in the session's frame log (the
 * raw provider diagnostics). Its pipes are tapped, not replaced: the bytes pass unchanged,
 * and its exit, errors, signals, pid and stderr are the process's own, so a recording or a
 * replay standing in for the process is logged the same way.
 */
export function frameLoggedProcess(child: AgentProcess, frames: FrameLogging): AgentProcess {
  const { onLine, onClose } = frameLineLogger(frames);
  const heard = lineTap((line) => onLine('in', line));
  const said = lineTap((line) => onLine('out', line));
  const stdout = child.stdout.pipe(
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        heard.push(chunk);
        done(null, chunk);
      },
      flush(done) {
        heard.end();
        done();
      },
    }),
  );
  const stdin = new Writable({
    write(chunk: Buffer, _encoding, done) {
      said.push(chunk);
      child.stdin.write(chunk, (error) => done(error ?? null));
    },
    final(done) {
      said.end();
      child.stdin.end();
      done();
    },
  });
  // The process's own pipe errors (a write after it died) reach whoever reads or writes it.
  child.stdin.on('error', (error) => stdin.destroy(error));
  child.stdout.on('error', (error) => stdout.destroy(error));
  child.once('exit', (code, signal) => onClose(signal ? `killed by ${signal}` : `exited with code ${code}`));
  return new TappedProcess(child, stdin, stdout);
}

/** The process itself in all but its pipes. */
class TappedProcess implements AgentProcess {
  constructor(
    private readonly child: AgentProcess,
    readonly stdin: Writable,
    readonly stdout: Readable,
  ) {}

  get pid(): number | undefined {
    return this.child.pid;
  }
  get stderr(): Readable | null {
    return this.child.stderr;
  }
  get killed(): boolean {
    return this.child.killed;
  }
  get exitCode(): number | null {
    return this.child.exitCode;
  }
  get signalCode(): NodeJS.Signals | null {
    return this.child.signalCode ?? null;
  }
  kill(signal: NodeJS.Signals): boolean {
    return this.child.kill(signal);
  }
  on(event: 'exit', listener: ExitListener): void;
  on(event: 'error', listener: ErrorListener): void;
  on(event: 'exit' | 'error', listener: ExitListener & ErrorListener): void {
    if (event === 'exit') this.child.on('exit', listener);
    else this.child.on('error', listener);
  }
  once(event: 'exit', listener: ExitListener): void;
  once(event: 'error', listener: ErrorListener): void;
  once(event: 'exit' | 'error', listener: ExitListener & ErrorListener): void {
    if (event === 'exit') this.child.once('exit', listener);
    else this.child.once('error', listener);
  }
  off(event: 'exit', listener: ExitListener): void;
  off(event: 'error', listener: ErrorListener): void;
  off(event: 'exit' | 'error', listener: ExitListener & ErrorListener): void {
    if (event === 'exit') this.child.off('exit', listener);
    else this.child.off('error', listener);
  }
}

/** Lines of a byte stream as they complete (a character split across chunks kept whole). */
function lineTap(onLine: (line: string) => void): { push(chunk: Buffer): void; end(): void } {
  const decoder = new StringDecoder('utf8');
  const lines = new LineSplitter(onLine);
  return {
    push: (chunk) => lines.push(decoder.write(chunk)),
    end: () => {
      lines.push(decoder.end());
      lines.flush();
    },
  };
}
