import { appendFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface DiagnosticsOptions {
  dir: string;
  /** File name stem, e.g. `codex-psess_1`. */
  name: string;
  /** Rotate when the current file passes this size. */
  maxBytes?: number;
  /** Keep at most this many files (current + rotated). */
  maxFiles?: number;
  /**
   * Keep the files of at most this many logs in the folder (this one and the most recently
   * written others, e.g. a thread's earlier sessions); older ones are removed when it opens.
   */
  maxLogs?: number;
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
 * the one before, and so on; the oldest is dropped. A folder keeps a few logs (a thread's
 * latest sessions), so retention is bounded however often its agent is started.
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
    try {
      pruneOlderLogs(options.dir, options.name, Math.max(1, options.maxLogs ?? 4));
    } catch {
      // Diagnostics must not take the runtime down: a log left over is better than none kept.
    }
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

/** A log file's name without its rotation number: `name.ndjson` and `name.2.ndjson` are both `name`'s. */
const LOG_FILE = /^(.*?)(?:\.\d+)?\.ndjson$/;

/** Removes the files of every log in `dir` but `name` and the `keep - 1` most recently written others. */
function pruneOlderLogs(dir: string, name: string, keep: number): void {
  const newest = new Map<string, number>();
  for (const file of readdirSync(dir)) {
    const log = LOG_FILE.exec(file)?.[1];
    if (log === undefined || log === name) continue;
    const written = statSync(join(dir, file)).mtimeMs;
    newest.set(log, Math.max(newest.get(log) ?? 0, written));
  }
  const old = new Set(
    [...newest]
      .sort((a, b) => b[1] - a[1])
      .slice(keep - 1)
      .map(([log]) => log),
  );
  if (old.size === 0) return;
  for (const file of readdirSync(dir)) {
    const log = LOG_FILE.exec(file)?.[1];
    if (log !== undefined && old.has(log)) rmSync(join(dir, file), { force: true });
  }
}
