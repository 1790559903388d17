import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import type { ProviderSessionId, ThreadId } from '../../domain/ids.js';

/**
 * The agent's process as the adapter holds it: what the SDK needs to talk to it (stdin,
 * stdout, kill, exit), plus its pid and stderr when it is a real process. A recording wraps
 * a real one; a replay stands in for it.
 */
export type AgentProcess = SpawnedProcess & {
  readonly pid?: number | undefined;
  readonly stderr: Readable | null;
};

/** Which agent process the SDK asked for. */
export interface AgentProcessScope {
  threadId: ThreadId;
  sessionId: ProviderSessionId;
  options: SpawnOptions;
}

/**
 * How the adapter gets its agent process. The default spawns the real binary; record and
 * replay channels give their own (`spawn` starts the real one, if they want it).
 */
export type AgentProcessFactory = (scope: AgentProcessScope, spawn: () => AgentProcess) => AgentProcess;

/**
 * util-linux's `setpriv`, which execs the agent with a parent-death signal. An agent whose
 * model request is still open outlives a SIGKILLed Baton by 20 s and more (measured), and
 * would finish its turn, tools included, with no one watching; with `--pdeathsig SIGKILL`
 * it dies with Baton. Where there is no `setpriv` the agent is spawned as it is.
 */
const SETPRIV = process.platform === 'linux' && existsSync('/usr/bin/setpriv') ? '/usr/bin/setpriv' : null;

/** The command line that runs `command` so that it dies with this process, where the platform allows it. */
export function diesWithParent(command: string, args: string[]): { command: string; args: string[] } {
  return SETPRIV ? { command: SETPRIV, args: ['--pdeathsig', 'SIGKILL', '--', command, ...args] } : { command, args };
}

/** The agent process, as the SDK would spawn it, but held by the adapter (its pid, its exit). */
export function spawnAgent(options: SpawnOptions): AgentProcess {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.env)) if (value !== undefined) env[name] = value;
  const line = diesWithParent(options.command, options.args);
  return spawn(line.command, line.args, {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    signal: options.signal,
  });
}
