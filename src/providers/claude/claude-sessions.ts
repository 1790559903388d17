import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { BatonError } from '../../domain/errors.js';
import type { ClaudeSessionDirs } from './claude-environment.js';

/**
 * What Baton reads and keeps of the agent's sessions in one thread's folders: a session's
 * conversation chain (through the SDK's `getSessionMessages`), where its transcript is, and
 * the forks Baton asked for that the agent has not written yet.
 *
 * The SDK helpers read `CLAUDE_CONFIG_DIR` from `process.env`, which is Baton's and shared
 * by every thread, so they run in a short-lived node child whose environment names the
 * thread's config dir: the transcripts the agent itself reads and writes.
 */

/** One message of a session's conversation chain (user and assistant messages, in order). */
export interface ChainMessage {
  uuid: string;
  type: 'user' | 'assistant' | 'system';
}

const ChainMessages = z.array(z.object({ uuid: z.string(), type: z.enum(['user', 'assistant', 'system']) }));

/** Runs in the child: argv[1] is the SDK's URL, argv[2] the session id. */
const SCRIPT = `
const sdk = await import(process.argv[1]);
const chain = await sdk.getSessionMessages(process.argv[2]);
process.stdout.write(JSON.stringify(chain.map((m) => ({ uuid: m.uuid, type: m.type }))));
`;

const sdkUrl = (): string =>
  pathToFileURL(createRequire(import.meta.url).resolve('@anthropic-ai/claude-agent-sdk')).href;

/** The conversation chain of a session in these folders (empty when there is no such session). */
export function sessionMessages(
  dirs: ClaudeSessionDirs,
  sessionId: string,
  timeoutMs = 30_000,
): Promise<ChainMessage[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', SCRIPT, sdkUrl(), sessionId],
      {
        env: { CLAUDE_CONFIG_DIR: dirs.configDir, HOME: dirs.home },
        timeout: timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error) {
          reject(
            new BatonError('provider_error', `reading Claude session ${sessionId} failed: ${stderr || error.message}`),
          );
          return;
        }
        let json: unknown = null;
        try {
          json = JSON.parse(stdout);
        } catch {
          // unreadable: reported below
        }
        const parsed = ChainMessages.safeParse(json);
        if (parsed.success) resolve(parsed.data);
        else
          reject(
            new BatonError('provider_error', `Claude session ${sessionId} read unreadably: ${stdout.slice(0, 200)}`),
          );
      },
    );
  });
}

/** The transcript of a session (`projects/<project>/<session>.jsonl` in the config dir), if there is one. */
export function transcriptOf(dirs: ClaudeSessionDirs, sessionId: string): { project: string; path: string } | null {
  const projects = join(dirs.configDir, 'projects');
  if (!existsSync(projects)) return null;
  const file = `${sessionId}.jsonl`;
  for (const project of readdirSync(projects, { withFileTypes: true })) {
    const path = join(projects, project.name, file);
    if (project.isDirectory() && existsSync(path)) return { project: project.name, path };
  }
  return null;
}

/**
 * Copies a session's transcript into another thread's config dir, under the same project
 * folder: the agent resumes a session found in any project folder of its config dir.
 */
export function copyTranscript(from: ClaudeSessionDirs, to: ClaudeSessionDirs, sessionId: string): void {
  const source = transcriptOf(from, sessionId);
  if (!source) throw new BatonError('not_found', `no transcript of Claude session ${sessionId}`);
  const target = join(to.configDir, 'projects', source.project);
  mkdirSync(target, { recursive: true, mode: 0o700 });
  copyFileSync(source.path, join(target, `${sessionId}.jsonl`));
}

/**
 * A fork Baton bound a provider thread to before the agent wrote it: session `sessionId`
 * is `from`'s conversation up to and including the chain entry `at`. The agent writes it
 * when it is started with `resume: from, resumeSessionAt: at, forkSession: true, sessionId`
 * and given a message (it keeps the entries' uuids, which Baton's turn refs are).
 */
export const PendingFork = z.object({ sessionId: z.uuid(), from: z.string().min(1), at: z.string().min(1) });
export type PendingFork = z.infer<typeof PendingFork>;

const forksDir = (dirs: ClaudeSessionDirs) => join(dirs.root, 'forks');

/** Keeps a pending fork in the thread's folders (it outlives Baton: the next run may come after a restart). */
export function writePendingFork(dirs: ClaudeSessionDirs, fork: PendingFork): void {
  mkdirSync(forksDir(dirs), { recursive: true, mode: 0o700 });
  writeFileSync(join(forksDir(dirs), `${fork.sessionId}.json`), JSON.stringify(fork), { mode: 0o600 });
}

/** The pending fork of a session id, if Baton made one there (an unreadable record is a typed error). */
export function pendingFork(dirs: ClaudeSessionDirs, sessionId: string): PendingFork | null {
  const parsedId = z.uuid().safeParse(sessionId);
  if (!parsedId.success) return null;
  const path = join(forksDir(dirs), `${parsedId.data}.json`);
  if (!existsSync(path)) return null;
  let json: unknown = null;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // unreadable: reported below
  }
  const parsed = PendingFork.safeParse(json);
  if (!parsed.success || parsed.data.sessionId !== sessionId)
    throw new BatonError('provider_error', `the pending Claude fork record ${path} is unreadable`);
  return parsed.data;
}
