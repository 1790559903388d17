import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import type { ProviderSessionId, ThreadId } from '../../domain/ids.js';
import { diesWithParent } from '../dies-with-parent.js';

// Moved to a provider-neutral module (the ACP agents die with Baton too); kept importable from here.

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
