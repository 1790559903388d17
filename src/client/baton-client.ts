import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import type { CommandOf, CommandType } from '../domain/commands.js';
import type { CommandAck } from '../domain/command-ack.js';
import type { ErrorInfo } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import { oversize } from '../server/limits.js';
import type { StreamRequest } from '../domain/stream-request.js';

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
  close(): Promise<void>;
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

  private constructor(readonly socket: Socket) {
    socket.on('stream', (msg: StreamMessage) => {
      for (const sub of this.subscriptions) sub.receive(msg);
    });
    // After a reconnect every subscription resumes where it stopped.
    socket.io.on('reconnect', () => {
      for (const sub of this.subscriptions) void sub.resume();
    });
  }

  static connect(url: string, token: string, options: { timeoutMs?: number } = {}): Promise<BatonClient> {
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
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new BatonClient(socket));
      });
      socket.once('connect_error', (error) => {
        clearTimeout(timer);
        socket.close();
        reject(error);
      });
    });
  }

  command<K extends CommandType>(type: K, payload: CommandPayload<K>): Promise<CommandAck> {
    const commandId = payload.commandId ?? `cmd_${randomUUID()}`;
    const command = { ...payload, type, commandId };
    // Refused here with the server's own answer: a message over the transport limit
    // would otherwise close the connection and leave this promise to time out.
    const tooBig = oversize('command', [command]);
    if (tooBig) return Promise.resolve({ ok: false, commandId, error: tooBig.toInfo() });
    return this.socket.timeout(60_000).emitWithAck('command', command);
  }

  query(q: Record<string, unknown>): Promise<{ ok: boolean; result?: unknown; error?: ErrorInfo }> {
    return this.socket.timeout(30_000).emitWithAck('query', q);
  }

  /** Subscribes; `onEvent` sees each later event exactly once, in order, across reconnects. */
  async subscribe(
    request: StreamRequest,
    onEvent: (event: DomainEvent, sequence: number) => void,
  ): Promise<{ subscription: ClientSubscription; snapshot: unknown; snapshotSequence: number }> {
    const sub = new LiveSubscription(this.socket, request, onEvent, (s) => this.subscriptions.delete(s));
    this.subscriptions.add(sub);
    const { snapshot, snapshotSequence } = await sub.open();
    return { subscription: sub, snapshot, snapshotSequence };
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

  constructor(
    private readonly socket: Socket,
    readonly request: StreamRequest,
    private readonly onEvent: (event: DomainEvent, sequence: number) => void,
    private readonly forget: (s: LiveSubscription) => void,
  ) {}

  async open(afterSequence?: number): Promise<{ snapshot: unknown; snapshotSequence: number }> {
    const req = afterSequence === undefined ? this.request : { ...this.request, afterSequence };
    const ack = (await this.socket.timeout(30_000).emitWithAck('subscribe', req)) as {
      ok: boolean;
      subscriptionId: string;
      snapshot: unknown;
      snapshotSequence: number;
      error?: ErrorInfo;
    };
    if (!ack.ok) throw new Error(`subscribe refused: ${ack.error?.code}: ${ack.error?.message}`);
    this.id = ack.subscriptionId;
    this.lastSequence = ack.snapshotSequence;
    const early = this.early;
    this.early = [];
    for (const msg of early) this.receive(msg);
    return { snapshot: ack.snapshot, snapshotSequence: ack.snapshotSequence };
  }

  resume(): Promise<unknown> {
    this.id = null;
    return this.open(this.lastSequence);
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
