import { io, type Socket } from 'socket.io-client';
import type { CommandOf, CommandType } from '../domain/commands.js';
import type { CommandAck } from '../domain/command-ack.js';
import { BatonError, type ErrorInfo } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import type { StreamRequest } from '../domain/stream-request.js';

// Browser-safe (the console bundles it): Web Crypto and TextEncoder, no Node built-ins.

/** The server's application limit on one message (src/server/limits.ts, which a browser cannot load: it uses Buffer). */
const PAYLOAD_MAX_BYTES = 1024 * 1024;

/** The server's own refusal of a command over the limit, made here without sending it. */
function oversizeCommand(command: unknown): BatonError | null {
  const json = JSON.stringify(command);
  // At most 3 bytes a UTF-16 unit: most commands are settled without encoding them.
  if (json.length * 3 <= PAYLOAD_MAX_BYTES) return null;
  const bytes = new TextEncoder().encode(json).length;
  if (bytes <= PAYLOAD_MAX_BYTES) return null;
  return new BatonError('invalid_payload', `command is ${bytes} bytes; the limit is ${PAYLOAD_MAX_BYTES}`, {
    bytes,
    limit: PAYLOAD_MAX_BYTES,
  });
}

/** A v4 UUID; `randomUUID` needs a secure context, `getRandomValues` does not (a console opened over a LAN address). */
function uuid(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  const b = c.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export type { CommandAck, StreamRequest };

export interface StreamMessage {
  subscriptionId: string;
  sequence: number;
  event: DomainEvent;
}

export interface ClientSubscription {
  readonly request: StreamRequest;
  /** The sequence of the last event received (or of the snapshot). */
  readonly lastSequence: number;
  /** The event log that sequence is in (null: a Baton that names none). */
  readonly logId: string | null;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** How long the first connect may take (10 s). */
  timeoutMs?: number;
  /**
   * Connect again when Baton closes the connection itself (it stopped, or cut this client
   * off for falling behind), as after any other lost connection; the subscriptions resume.
   */
  reconnectAfterServerClose?: boolean;
}

/** What a command carries beyond its type (its id is optional: the client makes one). */
export type CommandPayload<K extends CommandType> = Omit<CommandOf<K>, 'commandId' | 'type'> & { commandId?: string };

/**
 * The typed client of Baton's Socket.IO API. Commands get a commandId automatically (so a
 * retry after a reconnect is the same command); subscriptions survive reconnects by
 * resubscribing with `afterSequence`, so their listener sees every event once, in order.
 */
export class BatonClient {
  private readonly subscriptions = new Set<LiveSubscription>();

  private constructor(
    readonly socket: Socket,
    options: ConnectOptions,
  ) {
    socket.on('stream', (msg: StreamMessage) => {
      for (const sub of this.subscriptions) sub.receive(msg);
    });
    // Socket.IO comes back by itself after a lost connection, never after one the server
    // closed (Baton stopping, or cutting off a subscriber that fell behind).
    if (options.reconnectAfterServerClose)
      socket.on('disconnect', (reason) => {
        if (reason === 'io server disconnect') socket.connect();
      });
    // After every later connect (a reconnect, or a connect() after the server cut this
    // socket off) every subscription resumes where it stopped.
    socket.on('connect', () => {
      for (const sub of this.subscriptions) void sub.resume().catch((error: unknown) => sub.lost(error));
    });
  }

  static connect(url: string, token: string, options: ConnectOptions = {}): Promise<BatonClient> {
    const socket = io(url, {
      auth: { token },
      transports: ['websocket'],
      reconnectionDelay: 100,
      reconnectionDelayMax: 1_000,
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.close();
        reject(new Error(`could not connect to ${url}`));
      }, options.timeoutMs ?? 10_000);
      // Only the first connect fails the promise: left in place, this listener would close the
      // socket at the first failed reconnect after a restart of Baton, and no retry would follow.
      const failed = (error: Error) => {
        clearTimeout(timer);
        socket.close();
        reject(error);
      };
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('connect_error', failed);
        resolve(new BatonClient(socket, options));
      });
      socket.once('connect_error', failed);
    });
  }

  command<K extends CommandType>(type: K, payload: CommandPayload<K>): Promise<CommandAck> {
    const commandId = payload.commandId ?? `cmd_${uuid()}`;
    const command = { ...payload, type, commandId };
    // Refused here with the server's own answer: a message over the transport limit
    // would otherwise close the connection and leave this promise to time out.
    const tooBig = oversizeCommand(command);
    if (tooBig) return Promise.resolve({ ok: false, commandId, error: tooBig.toInfo() });
    return this.socket.timeout(60_000).emitWithAck('command', command);
  }

  query(q: Record<string, unknown>): Promise<{ ok: boolean; result?: unknown; error?: ErrorInfo }> {
    return this.socket.timeout(30_000).emitWithAck('query', q);
  }

  /**
   * Subscribes; `onEvent` sees each later event exactly once, in order, across reconnects.
   * A subscription that cannot resume after a reconnect (refused, say by a Baton that never
   * wrote the events it saw, or unanswered) ends there: `onLost` is told why, and nothing
   * more arrives.
   */
  async subscribe(
    request: StreamRequest,
    onEvent: (event: DomainEvent, sequence: number) => void,
    onLost?: (error: Error) => void,
  ): Promise<{ subscription: ClientSubscription; snapshot: unknown; snapshotSequence: number; logId: string | null }> {
    const sub = new LiveSubscription(this.socket, request, onEvent, (s) => this.subscriptions.delete(s), onLost);
    this.subscriptions.add(sub);
    try {
      const { snapshot, snapshotSequence } = await sub.open();
      return { subscription: sub, snapshot, snapshotSequence, logId: sub.logId };
    } catch (error) {
      // Never opened, so never resumed either (it would resume from the log's start).
      this.subscriptions.delete(sub);
      throw error;
    }
  }

  close(): void {
    this.socket.close();
  }
}

class LiveSubscription implements ClientSubscription {
  private id: string | null = null;
  /** Messages that arrive between the server's ack and our reading of it. */
  private early: StreamMessage[] = [];
  lastSequence = 0;
  /** The log the cursor is in (the server's answer names it): a resume names it back. */
  logId: string | null;

  constructor(
    private readonly socket: Socket,
    readonly request: StreamRequest,
    private readonly onEvent: (event: DomainEvent, sequence: number) => void,
    private readonly forget: (s: LiveSubscription) => void,
    private readonly onLost?: (error: Error) => void,
  ) {
    this.logId = request.logId ?? null;
  }

  async open(afterSequence?: number): Promise<{ snapshot: unknown; snapshotSequence: number }> {
    const req =
      afterSequence === undefined
        ? this.request
        : { ...this.request, afterSequence, ...(this.logId === null ? {} : { logId: this.logId }) };
    const ack = (await this.socket.timeout(30_000).emitWithAck('subscribe', req)) as {
      ok: boolean;
      subscriptionId: string;
      snapshot: unknown;
      snapshotSequence: number;
      logId?: string;
      error?: ErrorInfo;
    };
    // Refused: the server's typed error (a thread Baton does not have is `not_found`).
    if (!ack.ok)
      throw ack.error
        ? new BatonError(ack.error.code, ack.error.message, ack.error.details)
        : new BatonError('internal', 'subscribe refused without saying why');
    this.id = ack.subscriptionId;
    this.lastSequence = ack.snapshotSequence;
    this.logId = ack.logId ?? this.logId;
    const early = this.early;
    this.early = [];
    for (const msg of early) this.receive(msg);
    return { snapshot: ack.snapshot, snapshotSequence: ack.snapshotSequence };
  }

  resume(): Promise<unknown> {
    this.id = null;
    return this.open(this.lastSequence);
  }

  /** It could not resume: it ends, and says why. */
  lost(error: unknown): void {
    this.forget(this);
    this.onLost?.(error instanceof Error ? error : new Error(String(error)));
  }

  receive(msg: StreamMessage): void {
    if (this.id === null) {
      this.early.push(msg);
      return;
    }
    if (msg.subscriptionId !== this.id || msg.sequence <= this.lastSequence) return;
    this.lastSequence = msg.sequence;
    this.onEvent(msg.event, msg.sequence);
  }

  async close(): Promise<void> {
    this.forget(this);
    if (this.id)
      await this.socket
        .timeout(10_000)
        .emitWithAck('unsubscribe', this.id)
        .catch(() => undefined);
  }
}
