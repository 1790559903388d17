import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { diesWithParent } from '../dies-with-parent.js';
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
  child: ChildProcess;
  features: AcpAgentFeatures;
  /** The raw `initialize` answer (recorded as a fixture by the tests). */
  initialize: acp.InitializeResponse;
  /** Resolves when the process is gone. */
  exited: Promise<void>;
  /** The tail of its stderr. */
  stderr(): string;
  /** Ends the connection and the process (its group: an agent's own children go with it). */
  kill(signal: NodeJS.Signals): Promise<void>;
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
): Promise<AcpAgentConnection> {
  const line = diesWithParent(launch.command, launch.args);
  const child = spawn(line.command, line.args, {
    cwd,
    env: launch.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + String(chunk)).slice(-4000)));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
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
  const kill = (signal: NodeJS.Signals): Promise<void> => {
    connection.close();
    try {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
    return exited;
  };
  const failed = exited.then(() => {
    throw new Error(`the ACP agent exited before it answered initialize${stderr ? `: ${stderr.slice(-500)}` : ''}`);
  });
  // Observed by the race below; after a successful initialize the exit is the adapter's to watch.
  failed.catch(() => undefined);
  try {
    const initialize = await Promise.race([
      connection.agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: batonClientCapabilities,
      }),
      failed,
    ]);
    return {
      agent: connection.agent,
      child,
      features: acpAgentFeatures(initialize),
      initialize,
      exited,
      stderr: () => stderr,
      kill,
    };
  } catch (error) {
    await kill('SIGKILL');
    throw error;
  }
}
