import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import * as acp from '@agentclientprotocol/sdk';
import { BatonError } from '../../domain/errors.js';
import { endAgent } from '../agent-exit.js';
import { diesWithParent } from '../dies-with-parent.js';
import { frameLogged, type FrameLogging } from '../transport/frame-logged-channel.js';
import { ChildProcessChannel, type LineChannel } from '../transport/line-channel.js';
import { lineByteStreams } from '../transport/line-web-streams.js';
import type { AcpLaunch } from './acp-agents.js';
import { acpAgentFeatures, type AcpAgentFeatures } from './acp-capabilities.js';

/** What Baton answers the agent: its `session/update`s, its permission asks, and the fs and terminal methods. */
export interface AcpClientHandlers {
  update(params: acp.SessionNotification): void;
  requestPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse>;
  readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse>;
  createTerminal(params: acp.CreateTerminalRequest): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse>;
  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse>;
}

/** One agent process and the ACP connection over its stdio, initialized. */
export interface AcpAgentConnection {
  agent: acp.ClientContext;
  /** The agent process (a replay has no pid; its exit code comes from the recorded exit). */
  child: AcpAgentProcess;
  features: AcpAgentFeatures;
  /** The raw `initialize` answer (recorded as a fixture by the tests). */
  initialize: acp.InitializeResponse;
  /** Resolves when the process is gone. */
  exited: Promise<void>;
  /** The tail of its stderr. */
  stderr(): string;
  /**
   * Ends the connection and the process (its group: an agent's own children go with it),
   * SIGKILLed should `signal` not end it in time; resolves once it is gone.
   */
  kill(signal: NodeJS.Signals): Promise<void>;
  /**
   * A request of Baton's that the agent must answer in time (every one but the prompt, which
   * runs as long as its turn): an agent silent past the limit is killed, and it fails saying so.
   */
  answered<T>(method: string, request: Promise<T>): Promise<T>;
}

/** What the adapter sees of the agent process. */
export interface AcpAgentProcess {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  /** Its stdout: ended once the agent said its last line. */
  readonly stdout: { readonly readableEnded: boolean } | null;
}

/**
 * The agent's stdio as a line channel, given the spawner of the real process: a recording
 * wraps what `spawn` gives, a replay stands in for it (and never calls it).
 */
export type AcpChannelHook = (spawn: () => LineChannel) => LineChannel;

/** What ends an agent early: Baton stopping it as it starts, or a request unanswered for `timeoutMs` (default 30 s). */
export interface AcpLimits {
  abort?: AbortSignal;
  timeoutMs?: number;
  /** Where every frame both ways is logged (the raw provider diagnostics). */
  frames?: FrameLogging;
}

/** `request`'s answer, or a typed `timeout` once `ms` have passed without one (and then `onLate` runs). */
export function answeredWithin<T>(request: Promise<T>, ms: number, what: string, onLate: () => unknown): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The failure first: killing it also fails the request, with a reason that says less.
      reject(new BatonError('timeout', `the ACP agent did not answer ${what} within ${ms} ms; it was killed`));
      onLate();
    }, ms);
  });
  return Promise.race([request, late]).finally(() => clearTimeout(timer));
}

/** Baton as an ACP client: it reads and writes text files (confined to the thread's cwd) and runs terminals. */
export const batonClientCapabilities: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
};

/**
 * Starts the agent (dying with Baton, in a process group of its own so that what it starts
 * is stopped with it), connects over NDJSON and runs `initialize`. Rejects, with the agent's
 * stderr, if it exits or fails before answering.
 */
export async function connectAgent(
  launch: AcpLaunch,
  cwd: string,
  handlers: AcpClientHandlers,
  channelFor?: AcpChannelHook,
  limits: AcpLimits = {},
): Promise<AcpAgentConnection> {
  const { abort, timeoutMs = 30_000, frames } = limits;
  const spawned: { child: ChildProcess | null } = { child: null };
  let stderr = '';
  const spawnAgent = (): LineChannel => {
    const line = diesWithParent(launch.command, launch.args);
    const child = spawn(line.command, line.args, {
      cwd,
      env: launch.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + String(chunk)).slice(-4000)));
    spawned.child = child;
    // Closed once the agent exited and every line it wrote was read (its last answer included).
    return new ChildProcessChannel(child, { afterStdout: true });
  };
  const spoken = channelFor ? channelFor(spawnAgent) : spawnAgent();
  const channel = frames ? frameLogged(spoken, frames) : spoken;
  let closedWith: string | null = null;
  const exited = new Promise<void>((resolve) =>
    channel.onClose((reason) => {
      closedWith = reason;
      // A replay has no stderr: why it ended (a frame that differs from the recording) stands in.
      if (!spawned.child) stderr = reason;
      resolve();
    }),
  );
  const agentProcess: AcpAgentProcess = spawned.child ?? {
    pid: undefined,
    get exitCode() {
      return closedWith === null ? null : exitCodeOf(closedWith);
    },
    get signalCode() {
      return signalOf(closedWith);
    },
    stdout: {
      get readableEnded() {
        return closedWith !== null;
      },
    },
  };
  const { output, input } = lineByteStreams(channel);
  const stream = acp.ndJsonStream(output, input);
  const app = acp
    .client({ name: 'baton' })
    .onNotification('session/update', ({ params }) => handlers.update(params))
    .onRequest('session/request_permission', ({ params }) => handlers.requestPermission(params))
    .onRequest('fs/read_text_file', ({ params }) => handlers.readTextFile(params))
    .onRequest('fs/write_text_file', ({ params }) => handlers.writeTextFile(params))
    .onRequest('terminal/create', ({ params }) => handlers.createTerminal(params))
    .onRequest('terminal/output', ({ params }) => handlers.terminalOutput(params))
    .onRequest('terminal/wait_for_exit', ({ params }) => handlers.waitForTerminalExit(params))
    .onRequest('terminal/kill', ({ params }) => handlers.killTerminal(params))
    .onRequest('terminal/release', ({ params }) => handlers.releaseTerminal(params));
  const connection = app.connect(stream);
  /** Signals the agent's process group (its own children with it), while the agent runs. */
  const send = (signal: NodeJS.Signals): void => {
    const child = spawned.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  };
  const kill = (signal: NodeJS.Signals): Promise<void> => {
    connection.close();
    // Baton ends it (a recording tells this end from one the agent took on its own).
    channel.close();
    return endAgent(send, exited, signal);
  };
  const failed = exited.then(() => {
    throw new Error(`the ACP agent exited before it answered initialize${stderr ? `: ${stderr.slice(-500)}` : ''}`);
  });
  // Observed by the race below; after a successful initialize the exit is the adapter's to watch.
  failed.catch(() => undefined);
  // Stopped before it answered (Baton shutting down): it holds nothing yet, and may be hung.
  const onAbort = () => void kill('SIGKILL');
  abort?.addEventListener('abort', onAbort, { once: true });
  if (abort?.aborted) onAbort();
  const answered = <T>(method: string, request: Promise<T>): Promise<T> =>
    answeredWithin(request, timeoutMs, method, () => kill('SIGKILL'));
  try {
    const initialize = await answered(
      'initialize',
      Promise.race([
        connection.agent.request('initialize', {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: batonClientCapabilities,
        }),
        failed,
      ]),
    );
    return {
      agent: connection.agent,
      child: agentProcess,
      features: acpAgentFeatures(initialize),
      initialize,
      exited,
      stderr: () => stderr,
      kill,
      answered,
    };
  } catch (error) {
    await kill('SIGKILL');
    throw error;
  } finally {
    abort?.removeEventListener('abort', onAbort);
  }
}

/** A channel's close as a process's exit code (the words ChildProcessChannel and transcripts use; a signal has none). */
function exitCodeOf(reason: string): number | null {
  const code = /^exited with code (-?\d+)/.exec(reason);
  if (code) return Number(code[1]);
  if (signalOf(reason)) return null;
  return reason === 'closed by Baton' ? 0 : 1;
}

/** The signal a channel's close names, if it names one. */
function signalOf(reason: string | null): NodeJS.Signals | null {
  const signal = reason && /^killed by (SIG[A-Z0-9]+)/.exec(reason)?.[1];
  return signal && isSignal(signal) ? signal : null;
}

const isSignal = (name: string): name is NodeJS.Signals => name in constants.signals;
