import type { FrameLog } from './diagnostics.js';
import type { LineChannel } from './line-channel.js';

/** What an agent sent that was no JSON object: why, and the line. */
export type FrameProblemListener = (problem: string, line: string) => void;

export interface FrameLogging {
  log: FrameLog;
  /** Told of every line the agent sent that was no JSON object (the protocol's library skips it). */
  onProblem?: FrameProblemListener;
  now?: () => number;
}

/** What a frame logger is told: each whole line, which way it went, and the end. */
export interface FrameLineLogger {
  onLine(dir: 'in' | 'out', line: string): void;
  onClose(reason: string): void;
}

/** The longest unreadable line kept whole in the log. */
const PROBLEM_EXCERPT = 10_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The raw provider diagnostics of an agent whose protocol a library speaks (the Claude
 * SDK's stream-json, ACP's NDJSON), as Codex's JSON-RPC transport keeps its own: each line
 * both ways goes to the rotating frame log as the JSON it is. A line the agent sent that is
 * no JSON object is logged as a problem and reported, since the library would skip it (or
 * answer the agent) without a word to Baton.
 */
export function frameLineLogger({ log, onProblem, now = Date.now }: FrameLogging): FrameLineLogger {
  return {
    onLine(dir, line) {
      if (!line.trim()) return;
      const frame = parsed(line);
      if (frame !== undefined || dir === 'out') return log.write({ at: now(), dir, frame: frame ?? line });
      const problem = 'not a JSON object (garbled or truncated)';
      log.write({ at: now(), dir, frame: line.slice(0, PROBLEM_EXCERPT), problem });
      onProblem?.(problem, line);
    },
    onClose: (reason) => log.write({ at: now(), dir: 'note', frame: { closed: reason } }),
  };
}

/** A line channel whose every line, both ways, is logged before it is passed on unchanged. */
export function frameLogged(inner: LineChannel, frames: FrameLogging): LineChannel {
  const logger = frameLineLogger(frames);
  // Registered first, so a line is in the log before anyone acts on it.
  inner.onLine((line) => logger.onLine('in', line));
  inner.onClose((reason) => logger.onClose(reason));
  return {
    send(line) {
      logger.onLine('out', line);
      return inner.send(line);
    },
    onLine: (listener) => inner.onLine(listener),
    onClose: (listener) => inner.onClose(listener),
    close: () => inner.close(),
  };
}

function parsed(line: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
