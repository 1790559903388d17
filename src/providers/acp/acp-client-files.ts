import { existsSync, readFileSync, realpathSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type * as acp from '@agentclientprotocol/sdk';

/**
 * `fs/read_text_file` and `fs/write_text_file`, confined to the thread's cwd: a path
 * outside it (after symlinks are followed as far as the path exists) is refused with an
 * `invalid_params` error the agent sees, and nothing is read or written.
 */

/** The nearest existing ancestor's real path, with the rest of the path appended. */
function realOf(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const up = dirname(existing);
    if (up === existing) break;
    rest.unshift(existing.slice(up.length + (up.endsWith(sep) ? 0 : 1)));
    existing = up;
  }
  return resolve(realpathSync(existing), ...rest);
}

/** The path, if it lies inside `cwd`; else the error the agent gets. */
export function confined(cwd: string, path: string): string {
  if (!isAbsolute(path)) throw RequestError.invalidParams({ path }, `Baton accepts only absolute paths: ${path}`);
  const root = realpathSync(cwd);
  const real = realOf(resolve(path));
  const rel = relative(root, real);
  if (rel.startsWith('..') || isAbsolute(rel))
    throw RequestError.invalidParams({ path }, `${path} is outside the thread's workspace ${root}`);
  return real;
}

export function readTextFile(cwd: string, params: acp.ReadTextFileRequest): acp.ReadTextFileResponse {
  const path = confined(cwd, params.path);
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch {
    throw RequestError.resourceNotFound(path);
  }
  if (params.line == null && params.limit == null) return { content };
  const lines = content.split('\n');
  const start = Math.max(0, (params.line ?? 1) - 1);
  const end = params.limit == null ? lines.length : start + params.limit;
  return { content: lines.slice(start, end).join('\n') };
}

export function writeTextFile(cwd: string, params: acp.WriteTextFileRequest): acp.WriteTextFileResponse {
  const path = confined(cwd, params.path);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, params.content, 'utf8');
  return {};
}
