import { spawn } from 'node:child_process';
import type { z } from 'zod';
import { BatonError } from '../../domain/errors.js';
import { endAgent } from '../agent-exit.js';
import type { FrameLog } from '../transport/diagnostics.js';
import { JsonRpcConnection, type RpcId } from '../transport/json-rpc.js';
import { ChildProcessChannel, type LineChannel } from '../transport/line-channel.js';
import { codexBinaryPath } from './codex-binary.js';
import type {
  ThreadForkParams,
  ThreadResumeParams,
  ThreadRevertParams,
  ThreadStartParams,
  ThreadTurnsListParams,
  TurnInterruptParams,
  TurnStartParams,
  TurnSteerParams,
  UserInput,
} from '../../../vendor/codex-protocol/v2/index.js';
import { responseFrames } from './codex-frames.js';
import type { CodexReply } from './codex-replies.js';
import type { CodexTurnOverrides } from './codex-turn-settings.js';

/**
 * One running `codex app-server` (or a replayed transcript of one): the handshake and the
 * client requests Baton makes, validated at the edge with zod. Notifications and the
 * server's own requests are read by the adapter through `rpc`.
 */
export interface CodexSessionOptions {
  /** Per-session CODEX_HOME holding config.toml (see ensureCodexHome). */
  codexHome: string;
  cwd: string;
  log?: FrameLog;
  /** A channel to use instead of spawning the binary (replay tests). */
  channel?: LineChannel;
  requestTimeoutMs?: number;
  /** More environment for the spawned binary (its credential for Baton's MCP server). */
  env?: Record<string, string>;
}

const text = (t: string): UserInput[] => [{ type: 'text', text: t, text_elements: [] }];

/** Spawns the native binary, never the JS shim: signals must reach the real process. */
export function spawnCodex(cwd: string, codexHome: string, env: Record<string, string> = {}): ChildProcessChannel {
  const child = spawn(codexBinaryPath(), ['app-server'], {
    cwd,
    env: { ...process.env, ...env, CODEX_HOME: codexHome, RUST_LOG: process.env.BATON_CODEX_LOG ?? 'error' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stderr.resume();
  return new ChildProcessChannel(child);
}

/** Codex answered a request with an error (it is running and said no), as opposed to going away or timing out. */
export function refusedByCodex(error: unknown): error is BatonError {
  return (
    error instanceof BatonError &&
    typeof error.details === 'object' &&
    error.details !== null &&
    'rpcError' in error.details
  );
}

export class CodexSession {
  readonly rpc: JsonRpcConnection;
  readonly pid: number | null;
  private readonly channel: LineChannel;
  /** Resolves once the process is gone (its channel closed). */
  private readonly exited: Promise<void>;
  private gone = false;

  private constructor(channel: LineChannel, pid: number | null, options: CodexSessionOptions) {
    this.channel = channel;
    this.pid = pid;
    this.exited = new Promise((resolve) =>
      channel.onClose(() => {
        this.gone = true;
        resolve();
      }),
    );
    this.rpc = new JsonRpcConnection(channel, {
      ...(options.log ? { log: options.log } : {}),
      requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    });
  }

  /** Spawns the binary (or takes the given channel); `handshake` makes the session ready. */
  static open(options: CodexSessionOptions): CodexSession {
    const channel = options.channel ?? spawnCodex(options.cwd, options.codexHome, options.env);
    // A channel that is not the spawned binary may still name a process (a recording wraps one).
    const pid =
      channel instanceof ChildProcessChannel
        ? (channel.child.pid ?? null)
        : 'pid' in channel && typeof channel.pid === 'number'
          ? channel.pid
          : null;
    return new CodexSession(channel, pid, options);
  }

  static async start(options: CodexSessionOptions): Promise<CodexSession> {
    const session = CodexSession.open(options);
    await session.handshake();
    return session;
  }

  /** The handshake; a Codex that fails it (refuses, times out, exits) is killed, never left running. */
  async handshake(): Promise<void> {
    try {
      // Baton opts into the experimental API: collaboration modes and structured questions live there.
      await this.rpc.request('initialize', {
        clientInfo: { name: 'baton', title: 'Baton', version: '0.1.0' },
        capabilities: { experimentalApi: true },
      });
      await this.rpc.notify('initialized');
    } catch (error) {
      void this.stop(this.pid ? 'SIGKILL' : undefined);
      throw error;
    }
  }

  async threadStart(cwd: string, model: string | null): Promise<string> {
    const result = responseFrames['thread/start'].parse(
      await this.rpc.request('thread/start', { cwd, ...(model ? { model } : {}) } satisfies ThreadStartParams),
    );
    return result.thread.id;
  }

  async threadResume(threadId: string): Promise<string> {
    const result = responseFrames['thread/resume'].parse(
      await this.rpc.request('thread/resume', { threadId } satisfies ThreadResumeParams),
    );
    return result.thread.id;
  }

  /**
   * Starts a turn under `overrides` (model, sandbox, approvals, collaboration mode);
   * `onTurnId` sees the native turn id before any notification that follows.
   */
  async turnStart(
    threadId: string,
    input: string,
    overrides: CodexTurnOverrides,
    options: { clientUserMessageId?: string; onTurnId?: (id: string) => void } = {},
  ): Promise<string> {
    const params: TurnStartParams = {
      threadId,
      input: text(input),
      ...(options.clientUserMessageId ? { clientUserMessageId: options.clientUserMessageId } : {}),
      ...overrides,
    };
    const onResult = (r: unknown) => {
      const parsed = responseFrames['turn/start'].safeParse(r);
      if (parsed.success) options.onTurnId?.(parsed.data.turn.id);
    };
    return responseFrames['turn/start'].parse(await this.rpc.request('turn/start', params, undefined, onResult)).turn
      .id;
  }

  async turnSteer(threadId: string, expectedTurnId: string, input: string): Promise<void> {
    await this.rpc.request('turn/steer', { threadId, expectedTurnId, input: text(input) } satisfies TurnSteerParams);
  }

  /** Asks for an interrupt. The answer is only an acknowledgement: `turn/completed` ends the turn. */
  async turnInterrupt(
    threadId: string,
    turnId: string,
    timeoutMs?: number,
    onAcknowledged?: () => void,
  ): Promise<void> {
    await this.rpc.request(
      'turn/interrupt',
      { threadId, turnId } satisfies TurnInterruptParams,
      timeoutMs,
      onAcknowledged,
    );
  }

  /**
   * Drops `beforeTurnId` and every later turn; answers the turn ids the thread still holds,
   * oldest first. `thread/revert` returns metadata only (its `turns` is always empty), so
   * the history it kept is read back through `thread/turns/list`.
   */
  async threadRevert(threadId: string, beforeTurnId: string): Promise<string[]> {
    responseFrames['thread/revert'].parse(
      await this.rpc.request('thread/revert', { threadId, beforeTurnId } satisfies ThreadRevertParams),
    );
    return this.threadTurnIds(threadId);
  }

  /** Every turn id of a loaded thread, oldest first, page by page. */
  async threadTurnIds(threadId: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const params: ThreadTurnsListParams = {
        threadId,
        sortDirection: 'asc',
        itemsView: 'notLoaded',
        limit: 100,
        ...(cursor ? { cursor } : {}),
      };
      const page: z.infer<(typeof responseFrames)['thread/turns/list']> = responseFrames['thread/turns/list'].parse(
        await this.rpc.request('thread/turns/list', params),
      );
      ids.push(...page.data.map((t) => t.id));
      cursor = page.data.length > 0 ? page.nextCursor : null;
    } while (cursor);
    return ids;
  }

  /** `cwd`: where the fork works when it is not its source's folder (Codex keeps the source's unless told). */
  async threadFork(threadId: string, lastTurnId: string | null, cwd: string | null = null): Promise<string> {
    const result = responseFrames['thread/fork'].parse(
      await this.rpc.request('thread/fork', {
        threadId,
        ...(lastTurnId ? { lastTurnId } : {}),
        ...(cwd ? { cwd } : {}),
      } satisfies ThreadForkParams),
    );
    return result.thread.id;
  }

  /** Answers one of Codex's server requests (see `codexReply`). */
  reply(id: RpcId, reply: CodexReply): Promise<void> {
    return this.rpc.respond(id, reply);
  }

  /**
   * Ends the process: a polite close of its input, or a signal; SIGKILLed should it still run
   * after the grace period (`endAgent`). Resolves once it is gone; at once for a channel with
   * no process of its own (a replay).
   */
  stop(signal?: NodeJS.Signals): Promise<void> {
    const pid = this.pid;
    if (!signal || !pid) this.channel.close();
    if (!pid) return Promise.resolve();
    const send = (s: NodeJS.Signals) => {
      if (this.gone) return;
      try {
        process.kill(pid, s);
      } catch {
        // Already gone.
      }
    };
    return endAgent(send, this.exited, signal ?? null);
  }

  static assertReady(session: CodexSession | null): CodexSession {
    if (!session || session.rpc.isClosed) throw new BatonError('provider_error', 'the Codex session is not running');
    return session;
  }
}
