import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Server as IoServer, type Socket } from 'socket.io';
import { z } from 'zod';
import type { Runtime } from '../actors/runtime.js';
import { fromZodError, toErrorInfo } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import { StreamRequest, streamMatches, streamSnapshot } from './streams.js';

export interface BatonServerOptions {
  runtime: Runtime;
  host: string;
  port: number;
  token: string;
  logger: Logger;
  /** A client this far behind (packets waiting to be written) is cut off; it can resubscribe. */
  maxBufferedPackets?: number;
}

interface Subscription {
  id: string;
  req: StreamRequest;
  /** The sequence of the last event this subscription has seen: nothing at or below it is sent again. */
  lastDelivered: number;
}

const Query = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot'), request: StreamRequest }),
  z.object({ type: z.literal('events'), afterSequence: z.number().int().nonnegative(), limit: z.number().int().positive().max(10_000).optional(), threadId: z.string().optional() }),
  z.object({ type: z.literal('receipt'), commandId: z.string() }),
]);

type Ack = (response: unknown) => void;

const sameToken = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * The public API: Socket.IO over HTTP, token auth in the handshake, `command`, `subscribe`
 * / `unsubscribe` (snapshot + cursor) and `query`, and `GET /healthz`. Events reach
 * subscribers only after they are committed, in sequence order, each exactly once; a
 * subscriber that falls too far behind is disconnected rather than allowed to hold
 * memory or the runtime back.
 */
export class BatonServer {
  readonly http: HttpServer;
  readonly io: IoServer;
  private readonly subscriptions = new Map<Socket, Map<string, Subscription>>();
  private nextSubscription = 0;
  private stopEvents: (() => void) | null = null;

  constructor(private readonly options: BatonServerOptions) {
    this.http = createServer((req, res) => {
      if (req.url === '/healthz') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, lastSequence: options.runtime.store.lastSequence(), liveThreads: options.runtime.liveThreadCount }));
        return;
      }
      if (!req.url?.startsWith('/socket.io')) res.writeHead(404).end();
    });
    this.io = new IoServer(this.http, { serveClient: false, maxHttpBufferSize: 4 * 1024 * 1024 });
    this.io.use((socket, next) => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      if (typeof token === 'string' && sameToken(token, options.token)) return next();
      const error = new Error('unauthorized: a valid token is required in auth.token') as Error & { data?: unknown };
      error.data = { code: 'unauthorized' };
      options.logger.warn({ address: socket.handshake.address }, 'refused a connection without a valid token');
      next(error);
    });
    this.io.on('connection', (socket) => {
      options.logger.debug({ socket: socket.id, address: socket.handshake.address }, 'client connected');
      this.connected(socket);
    });
  }

  async listen(): Promise<{ host: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port, this.options.host, () => resolve());
    });
    this.stopEvents = this.options.runtime.onEvents((events) => this.publish(events));
    const address = this.http.address() as AddressInfo;
    return { host: address.address, port: address.port };
  }

  /** Stops accepting connections and closes the ones there are. */
  async close(): Promise<void> {
    this.stopEvents?.();
    this.io.disconnectSockets(true);
    await new Promise<void>((resolve) => this.io.close(() => resolve()));
  }

  private connected(socket: Socket): void {
    const subs = new Map<string, Subscription>();
    this.subscriptions.set(socket, subs);
    socket.on('disconnect', () => this.subscriptions.delete(socket));
    socket.on('command', (cmd: unknown, ack: Ack) => {
      if (typeof ack !== 'function') return;
      const started = performance.now();
      const type = (cmd as { type?: unknown } | null)?.type;
      this.options.runtime.dispatch(cmd).then(
        (result) => {
          const log = { socket: socket.id, type, commandId: result.commandId, ms: Math.round((performance.now() - started) * 100) / 100 };
          if (result.ok) this.options.logger.debug({ ...log, sequence: result.sequence }, 'command accepted');
          else this.options.logger.info({ ...log, error: result.error }, 'command refused');
          ack(result);
        },
        (error) => {
          this.options.logger.error({ err: error, type }, 'command failed');
          ack({ ok: false, commandId: null, error: toErrorInfo(error) });
        },
      );
    });
    socket.on('subscribe', (raw: unknown, ack: Ack) => {
      if (typeof ack !== 'function') return;
      const parsed = StreamRequest.safeParse(raw);
      if (!parsed.success) return ack({ ok: false, error: fromZodError('invalid_payload', 'subscription', parsed.error).toInfo() });
      const { response, catchUp } = this.subscribe(socket, subs, parsed.data);
      ack(response);
      catchUp();
    });
    socket.on('unsubscribe', (id: unknown, ack?: Ack) => {
      const removed = typeof id === 'string' && subs.delete(id);
      if (typeof ack === 'function') ack({ ok: removed });
    });
    socket.on('query', (raw: unknown, ack: Ack) => {
      if (typeof ack !== 'function') return;
      const parsed = Query.safeParse(raw);
      if (!parsed.success) return ack({ ok: false, error: fromZodError('invalid_payload', 'query', parsed.error).toInfo() });
      ack({ ok: true, result: this.query(parsed.data) });
    });
  }

  /**
   * The snapshot and its sequence are read in one synchronous stretch (no commit can land
   * in between); with `afterSequence`, the events missed since are sent instead, so a
   * client that reconnects sees no gap and no duplicate.
   */
  private subscribe(socket: Socket, subs: Map<string, Subscription>, req: StreamRequest): { response: unknown; catchUp: () => void } {
    const store = this.options.runtime.store;
    const id = `sub_${++this.nextSubscription}`;
    const snapshotSequence = req.afterSequence ?? store.lastSequence();
    const snapshot = req.afterSequence === undefined ? streamSnapshot(store, req) : null;
    const sub: Subscription = { id, req, lastDelivered: snapshotSequence };
    subs.set(id, sub);
    // Missed events follow the ack at once, in the same synchronous stretch, so no live
    // event can overtake them (one socket keeps its packets in order).
    const catchUp = () => {
      if (req.afterSequence === undefined) return;
      for (let batch = store.events.readAfter(sub.lastDelivered, 1_000); batch.length; batch = store.events.readAfter(sub.lastDelivered, 1_000)) {
        this.deliver(socket, sub, batch);
      }
    };
    return { response: { ok: true, subscriptionId: id, snapshot, snapshotSequence }, catchUp };
  }

  private query(q: z.infer<typeof Query>): unknown {
    const store = this.options.runtime.store;
    switch (q.type) {
      case 'snapshot':
        return { snapshot: streamSnapshot(store, q.request), snapshotSequence: store.lastSequence() };
      case 'events':
        return { events: q.threadId ? store.events.readThreadAfter(q.threadId, q.afterSequence, q.limit ?? 1_000) : store.events.readAfter(q.afterSequence, q.limit ?? 1_000) };
      case 'receipt':
        return { receipt: store.receipts.get(q.commandId) };
    }
  }

  private publish(events: DomainEvent[]): void {
    for (const [socket, subs] of this.subscriptions) {
      const buffered = (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
      if (buffered > (this.options.maxBufferedPackets ?? 10_000)) {
        this.options.logger.warn({ socket: socket.id, buffered }, 'disconnecting a subscriber that fell too far behind');
        socket.disconnect(true);
        continue;
      }
      for (const sub of subs.values()) this.deliver(socket, sub, events);
    }
  }

  private deliver(socket: Socket, sub: Subscription, events: DomainEvent[]): void {
    for (const event of events) {
      if (event.sequence <= sub.lastDelivered) continue;
      sub.lastDelivered = event.sequence;
      if (streamMatches(sub.req, event)) socket.emit('stream', { subscriptionId: sub.id, sequence: event.sequence, event });
    }
  }
}
