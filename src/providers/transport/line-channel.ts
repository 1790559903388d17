import type { Readable, Writable } from 'node:stream';

/**
 * A bidirectional stream of text lines: a provider process's stdio, or a recorded
 * transcript replayed in its place. The JSON-RPC layer sees no difference.
 */
export interface LineChannel {
  /** Resolves once the line is handed to the peer (waits out backpressure). */
  send(line: string): Promise<void>;
  onLine(listener: (line: string) => void): void;
  /** Called once, when the peer is gone for good. */
  onClose(listener: (reason: string) => void): void;
  close(): void;
}

/**
 * The listener bookkeeping every channel shares: lines go to every line listener; the
 * close is reported once, and at once to a listener that comes after it.
 */
export abstract class ChannelBase implements LineChannel {
  private readonly lineListeners: ((line: string) => void)[] = [];
  private readonly closeListeners: ((reason: string) => void)[] = [];
  protected closedReason: string | null = null;

  abstract send(line: string): Promise<void>;
  abstract close(): void;

  onLine(listener: (line: string) => void): void {
    this.lineListeners.push(listener);
  }

  onClose(listener: (reason: string) => void): void {
    if (this.closedReason) listener(this.closedReason);
    else this.closeListeners.push(listener);
  }

  protected emitLine(line: string): void {
    this.lineListeners.forEach((l) => l(line));
  }

  protected finish(reason: string): void {
    if (this.closedReason) return;
    this.closedReason = reason;
    this.closeListeners.forEach((l) => l(reason));
  }
}

/** Splits a byte stream into lines, holding a partial last line until it completes. */
export class LineSplitter {
  private buffer = '';
  constructor(private readonly emit: (line: string) => void) {}
  push(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline >= 0) {
      this.emit(this.buffer.slice(0, newline));
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
    }
  }
  /** What is left when the stream ends (a truncated frame, if anything). */
  flush(): void {
    if (this.buffer) this.emit(this.buffer);
    this.buffer = '';
  }
}

/** What a line channel needs of a process: its pipes, its pid if it has one, and its end. */
export interface LineProcess {
  readonly pid?: number | undefined;
  stdin: Writable;
  stdout: Readable;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * The stdio of a child process, one JSON object per line. With `afterStdout`, it is closed
 * only once the process has exited and its stdout has ended (every line it wrote is read
 * first), as the Claude SDK's own spawner does.
 */
export class ChildProcessChannel extends ChannelBase {
  constructor(
    readonly child: LineProcess,
    options: { afterStdout?: boolean } = {},
  ) {
    super();
    const splitter = new LineSplitter((line) => this.emitLine(line));
    let exit: string | null = null;
    let drained = !options.afterStdout;
    const close = () => {
      if (exit && drained) this.finish(exit);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => splitter.push(chunk));
    child.stdout.on('end', () => {
      splitter.flush();
      drained = true;
      close();
    });
    child.stdin.on('error', () => undefined);
    child.on('exit', (code, signal) => {
      exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
      close();
    });
    child.on('error', (error) => this.finish(`failed to start: ${error.message}`));
  }

  send(line: string): Promise<void> {
    if (this.closedReason) return Promise.reject(new Error(`process gone: ${this.closedReason}`));
    return new Promise((resolve, reject) => {
      const ok = this.child.stdin.write(`${line}\n`, (error) => (error ? reject(error) : undefined));
      if (ok) resolve();
      else this.child.stdin.once('drain', () => resolve());
    });
  }

  close(): void {
    this.child.stdin.end();
  }
}
