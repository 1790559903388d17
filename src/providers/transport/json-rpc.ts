import { z } from 'zod';
import { BatonError } from '../../domain/errors.js';
import type { FrameLog } from './diagnostics.js';
import type { LineChannel } from './line-channel.js';

/**
 * JSON-RPC over a line channel: one JSON object per line. Requests are correlated by id,
 * time out, and fail together when the channel closes; the peer's own requests and
 * notifications are handed to listeners. Every frame both ways goes to the frame log. A
 * garbled, truncated or unknown frame is logged, counted and reported, never thrown.
 */

const Id = z.union([z.number(), z.string()]);
const RpcError = z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() });
const Frame = z.union([
  z.object({ id: Id, result: z.unknown() }).loose(),
  z.object({ id: Id, error: RpcError }).loose(),
  z.object({ id: Id, method: z.string(), params: z.unknown().optional() }).loose(),
  z.object({ method: z.string(), params: z.unknown().optional() }).loose(),
]);

export type RpcId = z.infer<typeof Id>;

export interface JsonRpcOptions {
  log?: FrameLog;
  now?: () => number;
  /** Default timeout of our requests to the peer. */
  requestTimeoutMs?: number;
  /** Add `"jsonrpc": "2.0"` to outbound frames (ACP wants it; Codex does not use it). */
  versionField?: boolean;
}

interface Pending {
  method: string;
  onResult?: ((result: unknown) => void) | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

export class JsonRpcConnection {
  private nextId = 1;
  private readonly pending = new Map<RpcId, Pending>();
  private readonly notificationListeners = new Set<(method: string, params: unknown) => void>();
  private readonly requestListeners = new Set<(id: RpcId, method: string, params: unknown) => void>();
  private readonly problemListeners = new Set<(problem: string, raw: string) => void>();
  private readonly closeListeners = new Set<(reason: string) => void>();
  private closedWith: string | null = null;
  problemCount = 0;

  constructor(
    private readonly channel: LineChannel,
    private readonly options: JsonRpcOptions = {},
  ) {
    channel.onLine((line) => this.receive(line));
    channel.onClose((reason) => this.closed(reason));
  }

  get isClosed(): boolean {
    return this.closedWith !== null;
  }

  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  onRequest(listener: (id: RpcId, method: string, params: unknown) => void): () => void {
    this.requestListeners.add(listener);
    return () => this.requestListeners.delete(listener);
  }

  onProblem(listener: (problem: string, raw: string) => void): () => void {
    this.problemListeners.add(listener);
    return () => this.problemListeners.delete(listener);
  }

  /** Called once when the peer is gone; at once if it already is. */
  onClose(listener: (reason: string) => void): void {
    if (this.closedWith) listener(this.closedWith);
    else this.closeListeners.add(listener);
  }

  /**
   * Sends a request. `onResult`, when given, runs synchronously as the response is read,
   * before any later frame: for work that must keep the peer's order (an acknowledgement
   * that precedes the notification the peer sent after it).
   */
  request<T = unknown>(
    method: string,
    params: unknown,
    timeoutMs = this.options.requestTimeoutMs ?? 30_000,
    onResult?: (result: unknown) => void,
  ): Promise<T> {
    if (this.closedWith)
      return Promise.reject(
        new BatonError('provider_error', `${method}: the provider connection is closed (${this.closedWith})`),
      );
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new BatonError('timeout', `${method} timed out after ${timeoutMs} ms`, { method, timeoutMs }));
      }, timeoutMs);
      this.pending.set(id, { method, onResult, resolve: resolve as (v: unknown) => void, reject, timer });
      this.write({ id, method, params }).catch((error) => {
        clearTimeout(timer);
        this.pending.delete(id);
        reject(error);
      });
    });
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.write(params === undefined ? { method } : { method, params });
  }

  respond(id: RpcId, result: unknown): Promise<void> {
    return this.write({ id, result });
  }

  respondError(id: RpcId, code: number, message: string): Promise<void> {
    return this.write({ id, error: { code, message } });
  }

  close(): void {
    this.channel.close();
  }

  private async write(frame: Record<string, unknown>): Promise<void> {
    if (this.closedWith)
      throw new BatonError('provider_error', `the provider connection is closed (${this.closedWith})`);
    const out = this.options.versionField ? { jsonrpc: '2.0', ...frame } : frame;
    this.options.log?.write({ at: this.now(), dir: 'out', frame: out });
    await this.channel.send(JSON.stringify(out));
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private receive(line: string): void {
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return this.problem('not JSON (garbled or truncated)', line);
    }
    const parsed = Frame.safeParse(raw);
    if (!parsed.success) return this.problem('not a JSON-RPC frame', line);
    this.options.log?.write({ at: this.now(), dir: 'in', frame: raw });
    const frame = parsed.data as Record<string, unknown>;
    if ('method' in frame && 'id' in frame) {
      for (const l of this.requestListeners) l(frame.id as RpcId, frame.method as string, frame.params);
      return;
    }
    if ('method' in frame) {
      for (const l of this.notificationListeners) l(frame.method as string, frame.params);
      return;
    }
    const pending = this.pending.get(frame.id as RpcId);
    if (!pending) return this.problem(`response to unknown request id ${String(frame.id)}`, line);
    this.pending.delete(frame.id as RpcId);
    clearTimeout(pending.timer);
    if ('error' in frame) {
      const error = frame.error as z.infer<typeof RpcError>;
      pending.reject(
        new BatonError('provider_error', `${pending.method}: ${error.message}`, {
          method: pending.method,
          rpcError: error,
        }),
      );
    } else {
      pending.onResult?.(frame.result);
      pending.resolve(frame.result);
    }
  }

  private problem(problem: string, raw: string): void {
    this.problemCount += 1;
    this.options.log?.write({ at: this.now(), dir: 'in', frame: raw.slice(0, 10_000), problem });
    for (const l of this.problemListeners) l(problem, raw);
  }

  private closed(reason: string): void {
    if (this.closedWith) return;
    this.closedWith = reason;
    this.options.log?.write({ at: this.now(), dir: 'note', frame: { closed: reason } });
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(
        new BatonError('provider_error', `${p.method}: the provider went away (${reason})`, {
          method: p.method,
          reason,
        }),
      );
    }
    this.pending.clear();
    for (const l of this.closeListeners) l(reason);
  }
}
