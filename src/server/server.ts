import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Server as IoServer, type Socket } from 'socket.io';
import { z } from 'zod';
import type { Runtime } from '../actors/runtime.js';
import { BatonError, fromZodError, toErrorInfo } from '../domain/errors.js';
import type { DomainEvent } from '../domain/events.js';
import { sameToken } from './auth.js';
import { connectParser } from './connect-parser.js';
import { AckFirst } from './ack-first.js';
import { ActorsQuery, actorStates } from './actor-states.js';
import { CheckpointDiffQuery } from './checkpoint-diff.js';
import { checkpointDiff } from './checkpoint-diff-git.js';
import type { PageRoute } from './console-route.js';
import { answerHttp, originChecked, refuseStrayUpgrade, type HttpRoute } from './http-routes.js';
import { TRANSPORT_MAX_BYTES, oversize } from './limits.js';
import { originPolicy } from './origin-policy.js';
import { LogId, StreamRequest } from '../domain/stream-request.js';
import { ThreadId } from '../domain/ids.js';
import { unplaceable } from './unplaceable-cursor.js';
import { encodeSubscriptionId, frameCache, type StreamFrame } from './stream-frame.js';
import { streamMatches, streamSnapshot, unknownThread } from './streams.js';
import { catchUp } from './catch-up.js';

export interface BatonServerOptions {
  runtime: Runtime;
  host: string;
  port: number;
  token: string;
  logger: Logger;
  /** Browser origins allowed besides Baton's own (`BATON_ALLOWED_ORIGINS`). */
  allowedOrigins?: readonly string[];
  /** A client this far behind (packets waiting to be written) is cut off; it can resubscribe. */
  maxBufferedPackets?: number;
  /** Further HTTP routes by path (the MCP endpoint), behind the same Origin allow-list as the handshake. */
  routes?: Readonly<Record<string, HttpRoute>>;
  /** The console's static files at `/` (public: the page holds nothing until it is given the token). */
  pages?: PageRoute;
}

interface Subscription {
  id: string;
  /** The id as JSON, spliced into each frame this subscription is sent. */
  encodedId: string;
  req: StreamRequest;
  /** The sequence of the last event this subscription has seen: nothing at or below it is sent again. */
  lastDelivered: number;
  /** While its missed events are read from the log (`catchUp`), the fan-out passes it by. */
  catchingUp: boolean;
}

// Strict, like commands: a field no query reads (a typo of `threadId`, say) is refused, not
// dropped, so a query never answers for more than the client asked about.
const Query = z.discriminatedUnion('type', [
  z.object({ type: z.literal('snapshot'), request: StreamRequest }).strict(),
  z
    .object({
      type: z.literal('events'),
      afterSequence: z.number().int().nonnegative(),
      logId: LogId.optional(),
      limit: z.number().int().positive().max(10_000).optional(),
      threadId: ThreadId.optional(),
    })
    .strict(),
  z.object({ type: z.literal('receipt'), commandId: z.string() }).strict(),
  ActorsQuery,
  CheckpointDiffQuery,
]);

type Ack = (response: unknown) => void;

/**
 * The public API: Socket.IO over HTTP (an Origin allow-list at the HTTP handshake, token
 * auth in the Socket.IO handshake, a size limit on every message), `command`, `subscribe`
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
  private readonly fanOut = new AckFirst<DomainEvent>((events) => this.publish(events));
  private stopEvents: (() => void) | null = null;
  /** A client with this many packets waiting to be written is cut off (it can resubscribe). */
  private readonly maxBufferedPackets: number;
  /** Replaced once the port is known (it may be 0 until then). */
  private originAllowed: (origin: string | undefined) => boolean;

  constructor(private readonly options: BatonServerOptions) {
    this.originAllowed = originPolicy(options.allowedOrigins ?? [], options);
    this.maxBufferedPackets = options.maxBufferedPackets ?? 10_000;
    const routes = originChecked(options.routes ?? {}, (origin) => this.originAllowed(origin));
    this.http = createServer((req, res) =>
      answerHttp(
        req,
        res,
        () => ({
          ok: true,
          lastSequence: options.runtime.store.lastSequence(),
          liveThreads: options.runtime.liveThreadCount,
        }),
        routes,
        options.pages,
      ),
    );
    this.io = new IoServer(this.http, {
      serveClient: false,
      maxHttpBufferSize: TRANSPORT_MAX_BYTES,
      parser: connectParser,
      // Refused at the HTTP handshake (403), before any Socket.IO packet: a web page the
      // user happens to visit cannot reach Baton's API.
      allowRequest: (req, callback) => {
        const origin = req.headers.origin;
        if (this.originAllowed(origin)) return callback(null, true);
        options.logger.warn(
          { origin, address: req.socket.remoteAddress },
          'refused a handshake from a browser origin that is not allowed',
        );
        callback('origin not allowed', false);
      },
    });
    this.http.on('upgrade', refuseStrayUpgrade);
    this.io.use((socket, next) => {
      if (sameToken((socket.handshake.auth as { token?: unknown } | undefined)?.token, options.token)) return next();
      const refusal = new BatonError('unauthorized', 'unauthorized: a valid token is required in auth.token');
      options.logger.warn({ address: socket.handshake.address }, 'refused a connection without a valid token');
      next(Object.assign(new Error(refusal.message), { data: refusal.toInfo() }));
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
    this.stopEvents = this.options.runtime.onEvents((events) => this.fanOut.committed(events));
    const address = this.http.address() as AddressInfo;
    this.originAllowed = originPolicy(this.options.allowedOrigins ?? [], {
      host: this.options.host,
      port: address.port,
    });
    return { host: address.address, port: address.port };
  }

  /** Stops accepting connections and closes the ones there are. */
  async close(): Promise<void> {
    this.stopEvents?.();
    this.fanOut.close();
    this.io.disconnectSockets(true);
    await new Promise<void>((resolve) => this.io.close(() => resolve()));
  }

  private connected(socket: Socket): void {
    const subs = new Map<string, Subscription>();
    this.subscriptions.set(socket, subs);
    socket.on('disconnect', () => this.subscriptions.delete(socket));
    socket.use((packet, next) => {
      if (this.withinLimit(socket, packet)) next();
    });
    socket.on('command', (cmd: unknown, ack: Ack) => {
      if (typeof ack !== 'function') return;
      const started = performance.now();
      const type = (cmd as { type?: unknown } | null)?.type;
      this.options.runtime.dispatch(cmd).then(
        (result) => {
          // The caller's own subscriptions have the command's events before its ack, as
          // ever; everyone else's fan-out follows the ack (AckFirst).
          this.deliverHeld(socket);
          // Logging is not on the client's path.
          ack(result);
          const { logger } = this.options;
          if (result.ok && !logger.isLevelEnabled('debug')) return;
          const log = {
            socket: socket.id,
            type,
            commandId: result.commandId,
            ms: Math.round((performance.now() - started) * 100) / 100,
          };
          if (result.ok) logger.debug({ ...log, sequence: result.sequence }, 'command accepted');
          else logger.info({ ...log, error: result.error }, 'command refused');
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
      if (!parsed.success)
        return ack({ ok: false, error: fromZodError('invalid_payload', 'subscription', parsed.error).toInfo() });
      const { store } = this.options.runtime;
      const refused =
        unplaceable(parsed.data, { id: store.events.id, lastSequence: store.lastSequence() }) ??
        unknownThread(store, parsed.data);
      if (refused) return ack({ ok: false, error: refused.toInfo() });
      const { response, catchUp } = this.subscribe(socket, subs, parsed.data);
      ack(response);
      catchUp();
    });
    socket.on('unsubscribe', (id: unknown, ack?: Ack) => {
      if (typeof ack !== 'function') return void (typeof id === 'string' && subs.delete(id));
      if (typeof id !== 'string')
        return ack({
          ok: false,
          error: new BatonError('invalid_payload', 'unsubscribe takes the subscriptionId (a string)').toInfo(),
        });
      if (!subs.delete(id))
        return ack({
          ok: false,
          error: new BatonError('not_found', `no subscription ${id} on this connection`).toInfo(),
        });
      ack({ ok: true });
    });
    socket.on('query', (raw: unknown, ack: Ack) => {
      if (typeof ack !== 'function') return;
      const parsed = Query.safeParse(raw);
      if (!parsed.success)
        return ack({ ok: false, error: fromZodError('invalid_payload', 'query', parsed.error).toInfo() });
      const q = parsed.data;
      // Read from git, not the store: answered when git is done, its refusals typed.
      if (q.type === 'checkpoint-diff')
        return void checkpointDiff(this.options.runtime.store, this.options.runtime.checkpoints, q).then(
          (result) => ack({ ok: true, result }),
          (error: unknown) => {
            if (!(error instanceof BatonError)) this.options.logger.error({ err: error, query: q }, 'query failed');
            ack({ ok: false, error: toErrorInfo(error) });
          },
        );
      try {
        ack({ ok: true, result: this.query(q) });
      } catch (error) {
        if (!(error instanceof BatonError)) throw error;
        ack({ ok: false, error: error.toInfo() });
      }
    });
  }

  /** A message over the application limit is answered with a typed ack and goes no further. */
  private withinLimit(socket: Socket, [event, ...args]: unknown[]): boolean {
    const error = oversize(String(event), args);
    if (!error) return true;
    const ack = args.at(-1);
    const commandId = (args[0] as { commandId?: unknown } | null)?.commandId;
    this.options.logger.info(
      { socket: socket.id, event, details: error.details },
      'refused a message over the size limit',
    );
    if (typeof ack === 'function')
      ack({ ok: false, commandId: typeof commandId === 'string' ? commandId : null, error: error.toInfo() });
    return false;
  }

  /**
   * The snapshot and its sequence are read in one synchronous stretch (no commit can land
   * in between); with `afterSequence`, the events missed since are sent instead, so a
   * client that reconnects sees no gap and no duplicate.
   */
  private subscribe(
    socket: Socket,
    subs: Map<string, Subscription>,
    req: StreamRequest,
  ): { response: unknown; catchUp: () => void } {
    const store = this.options.runtime.store;
    const id = `sub_${++this.nextSubscription}`;
    const resumed = req.afterSequence !== undefined;
    const snapshotSequence = req.afterSequence ?? store.lastSequence();
    const snapshot = resumed ? null : streamSnapshot(store, req);
    const sub: Subscription = {
      id,
      encodedId: encodeSubscriptionId(id),
      req,
      lastDelivered: snapshotSequence,
      catchingUp: resumed,
    };
    subs.set(id, sub);
    // The first page of missed events follows the ack at once; live events wait for the last.
    const start = () =>
      catchUp(
        store.events,
        {
          req,
          get lastDelivered() {
            return sub.lastDelivered;
          },
          deliver: (events) => this.deliver(socket, sub, events, frameCache(socket.nsp.name)),
          active: () => socket.connected && subs.get(id) === sub,
          buffered: () => socket.conn['writeBuffer'].length,
          onDrain: (next) => socket.conn.once('drain', next),
          live: (sequence) => {
            sub.lastDelivered = Math.max(sub.lastDelivered, sequence);
            sub.catchingUp = false;
          },
        },
        this.maxBufferedPackets,
      );
    return {
      response: { ok: true, subscriptionId: id, snapshot, snapshotSequence, logId: store.events.id },
      catchUp: resumed ? start : () => {},
    };
  }

  private query(q: Exclude<z.infer<typeof Query>, CheckpointDiffQuery>): unknown {
    const store = this.options.runtime.store;
    const log = { id: store.events.id, lastSequence: store.lastSequence() };
    switch (q.type) {
      case 'snapshot': {
        if (q.request.afterSequence !== undefined)
          throw new BatonError(
            'invalid_payload',
            'a snapshot query takes no afterSequence: subscribe with it to resume',
            {
              afterSequence: q.request.afterSequence,
            },
          );
        const refused = unplaceable(q.request, log) ?? unknownThread(store, q.request);
        if (refused) throw refused;
        return { snapshot: streamSnapshot(store, q.request), snapshotSequence: log.lastSequence, logId: log.id };
      }
      case 'events': {
        const refused = unplaceable({ logId: q.logId }, log) ?? unknownThread(store, q);
        if (refused) throw refused;
        return {
          events: q.threadId
            ? store.events.readThreadAfter(q.threadId, q.afterSequence, q.limit ?? 1_000)
            : store.events.readAfter(q.afterSequence, q.limit ?? 1_000),
          logId: log.id,
        };
      }
      case 'receipt':
        return { receipt: store.receipts.get(q.commandId), logId: log.id };
      case 'actors': {
        const refused = unknownThread(store, q);
        if (refused) throw refused;
        return actorStates(store, q);
      }
    }
  }

  /**
   * The events held for the fan-out, now, to one socket's subscriptions only; the fan-out
   * will not send them again (`lastDelivered`).
   */
  private deliverHeld(socket: Socket): void {
    const subs = this.subscriptions.get(socket);
    const held = this.fanOut.pending;
    if (!subs?.size || held.length === 0) return;
    const frameOf = frameCache(socket.nsp.name);
    for (const sub of subs.values()) if (!sub.catchingUp) this.deliver(socket, sub, held, frameOf);
  }

  /**
   * Each event is encoded once for all its subscribers (the frame differs only by the
   * subscription id) and written to each socket's engine without awaiting anything, so
   * one subscriber's pace costs the others nothing.
   */
  private publish(events: DomainEvent[]): void {
    const frameOf = frameCache(this.io.sockets.name);
    const limit = this.maxBufferedPackets;
    for (const [socket, subs] of this.subscriptions) {
      if (subs.size === 0) continue;
      // Packets the engine holds because the client is not reading (engine.io keeps no public count).
      const buffered = socket.conn['writeBuffer'].length;
      if (buffered > limit) {
        this.options.logger.warn(
          { socket: socket.id, buffered },
          'disconnecting a subscriber that fell too far behind',
        );
        socket.disconnect(true);
        continue;
      }
      for (const sub of subs.values()) if (!sub.catchingUp) this.deliver(socket, sub, events, frameOf);
    }
  }

  /** Sends `sub` the events past its last one that its stream carries, in order, each once. */
  private deliver(
    socket: Socket,
    sub: Subscription,
    events: readonly DomainEvent[],
    frameOf: (event: DomainEvent) => StreamFrame,
  ): void {
    for (const event of events) {
      if (event.sequence <= sub.lastDelivered) continue;
      sub.lastDelivered = event.sequence;
      // The packet `socket.emit('stream', { subscriptionId, sequence, event })` would write.
      if (streamMatches(sub.req, event)) socket.conn.write(frameOf(event)(sub.encodedId));
    }
  }
}
