import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandOf } from '../domain/commands.js';
import { BatonError, toErrorInfo, type ErrorInfo } from '../domain/errors.js';
import type { Store } from '../persistence/store.js';
import type { WorkspaceCheckOptions } from './workspace-cwd.js';

/** What naming a fork's workspace needs of the runtime. */
export interface ForkWorkspaceEnv {
  /** Where a fork's own workspace is made when its command names none (`<dataDir>/workspaces`); null: no data dir. */
  readonly forkWorkspaces: string | null;
  /** A fork's workspace is written from one of its checkpoints; null: this Baton keeps none. */
  readonly checkpoints: unknown;
  /** The runtime's workspace check (see Runtime.checkWorkspace). */
  checkWorkspace(cwd: string, options: WorkspaceCheckOptions): Promise<void>;
  readonly store: Store;
}

/**
 * Names a fork's workspace before its step, so a refusal stores nothing: the command's
 * `cwd` (absent or empty, and apart from its source's workspace: the source's captures and
 * rollbacks would take in the fork's files), else a new folder `<root>/<forkThreadId>`.
 * The command goes on with `cwd` set exactly when the fork gets a workspace of its own
 * (see forkThread). A Baton without checkpoints has nothing to write one from, and one
 * without a data dir nowhere to put it unasked: there a fork without `cwd` works in its
 * source's workspace (and, without checkpoints, a `cwd` is refused).
 */
export function nameForkWorkspace(
  c: CommandOf<'thread.fork'>,
  threadId: string,
  env: ForkWorkspaceEnv,
): Promise<{ command: CommandOf<'thread.fork'> } | { error: ErrorInfo }> {
  return withForkWorkspace(c, threadId, env).then(
    (command) => ({ command }),
    (error: unknown) => ({ error: toErrorInfo(error) }),
  );
}

async function withForkWorkspace(
  c: CommandOf<'thread.fork'>,
  threadId: string,
  env: ForkWorkspaceEnv,
): Promise<CommandOf<'thread.fork'>> {
  const root = env.forkWorkspaces;
  if (c.cwd === undefined) return root && env.checkpoints ? { ...c, cwd: join(root, threadId) } : c;
  if (!env.checkpoints)
    throw new BatonError(
      'unsupported',
      "this Baton keeps no checkpoints, which a fork's own workspace is written from: fork without cwd",
      { cwd: c.cwd },
    );
  const source = env.store.projections.get('threads', c.sourceThreadId);
  await env.checkWorkspace(c.cwd, { mayBeAbsent: true, apartFrom: source ? [source.workspace.cwd] : [] });
  const entries = await readdir(c.cwd).catch(() => []);
  if (entries.length)
    throw new BatonError(
      'invalid_payload',
      `cwd ${JSON.stringify(c.cwd)} is not empty: a fork's workspace is written from its fork point's checkpoint into an empty or new folder`,
      { cwd: c.cwd, reason: 'not empty' },
    );
  return c;
}
