import { appendFileSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface DiagnosticsOptions {
  dir: string;
  /** File name stem, e.g. `codex-psess_1`. */
  name: string;
  /** Rotate when the current file passes this size. */
  maxBytes?: number;
  /** Keep at most this many files (current + rotated). */
  maxFiles?: number;
}

export interface FrameRecord {
  at: number;
  dir: 'in' | 'out' | 'note';
  frame: unknown;
  /** Set when an inbound frame could not be used (garbled, truncated, unknown). */
  problem?: string;
}

/**
 * Raw provider frames, both directions, as bounded rotating NDJSON files. They are
 * diagnostics and replay material, never app state: `name.ndjson` is current, `name.1.ndjson`
 * the one before, and so on; the oldest is dropped.
 */
export class FrameLog {
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private size: number;
  readonly path: string;

  constructor(private readonly options: DiagnosticsOptions) {
    this.maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
    this.maxFiles = Math.max(1, options.maxFiles ?? 4);
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    this.path = this.file(0);
    this.size = existsSync(this.path) ? statSync(this.path).size : 0;
  }

  private file(n: number): string {
    return join(this.options.dir, n === 0 ? `${this.options.name}.ndjson` : `${this.options.name}.${n}.ndjson`);
  }

  /** Failures to write are counted, never thrown: diagnostics must not take the runtime down. */
  writeFailures = 0;

  write(record: FrameRecord): void {
    try {
      const line = `${JSON.stringify(record)}\n`;
      if (this.size > 0 && this.size + line.length > this.maxBytes) this.rotate();
      appendFileSync(this.path, line, { mode: 0o600 });
      this.size += Buffer.byteLength(line);
    } catch {
      this.writeFailures += 1;
    }
  }

  private rotate(): void {
    rmSync(this.file(this.maxFiles - 1), { force: true });
    for (let n = this.maxFiles - 2; n >= 0; n--) {
      if (existsSync(this.file(n))) renameSync(this.file(n), this.file(n + 1));
    }
    this.size = 0;
  }

  /** Every file of this log, newest first. */
  files(): string[] {
    return Array.from({ length: this.maxFiles }, (_, n) => this.file(n)).filter((f) => existsSync(f));
  }
}
