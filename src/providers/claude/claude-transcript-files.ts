import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

/**
 * The agent's session files (`<config>/projects/<cwd>/<session>.jsonl`, and its subagents'),
 * which Baton itself reads to roll a conversation back or fork it (claude-sessions.ts). A
 * replay has no agent to write them, so a recording keeps them with the process: their lines
 * as they stood after each turn's `result` (keyed by the result's uuid) and at the end. A
 * replay writes them at the same points, before it says the result.
 */
export const SessionFiles = z.object({
  files: z.array(z.object({ path: z.string(), lines: z.array(z.string()) })),
  /** After the result with this uuid, the first `counts[i]` lines of `files[i]` were written. */
  marks: z.array(z.object({ result: z.string(), counts: z.array(z.number().int().nonnegative()) })),
});
export type SessionFiles = z.infer<typeof SessionFiles>;

/**
 * A session file's line as a recording keeps it: the conversation chain whole (every entry with
 * a uuid, and the small bookkeeping lines), but not the agent's API request logs, and of an
 * attachment (environment, skill listings, prompt snapshots: up to 90 kB each) only its type.
 * Baton reads the chain; a replay writes nothing it did not read, and the recording stays small.
 */
const SessionLine = z.looseObject({ type: z.string(), attachment: z.looseObject({ type: z.unknown() }).optional() });

function kept(line: string): string | null {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const read = SessionLine.safeParse(entry);
  if (!read.success) return line;
  if (read.data.type.startsWith('api-request')) return null;
  if (read.data.attachment) return JSON.stringify({ ...read.data, attachment: { type: read.data.attachment.type } });
  return line;
}

/** Every `.jsonl` under a folder, by path, as lines (none when the folder is not there). */
function readJsonl(dir: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return found;
  }
  for (const name of names.filter((n) => n.endsWith('.jsonl')).sort()) {
    const path = join(dir, name);
    try {
      const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
      found.set(
        path,
        lines.flatMap((line) => kept(line) ?? []),
      );
    } catch {
      // a folder named *.jsonl, or gone meanwhile: not a session file
    }
  }
  return found;
}

const ResultUuid = z.looseObject({ type: z.literal('result'), uuid: z.string() });

/** The uuid of a `result` line, if the line is one. */
export function resultUuidOf(line: string): string | null {
  try {
    const parsed = ResultUuid.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data.uuid : null;
  } catch {
    return null;
  }
}

/** Watches one agent's session files while it is recorded. */
export class SessionFilesRecorder {
  private readonly marks: { result: string; counts: Map<string, number> }[] = [];

  constructor(private readonly configDir: string) {}

  private get projects(): string {
    return join(this.configDir, 'projects');
  }

  /** The agent said this line: after a result, how far its files are written. */
  heard(line: string): void {
    const result = resultUuidOf(line);
    if (!result) return;
    const counts = new Map([...readJsonl(this.projects)].map(([path, lines]) => [path, lines.length]));
    this.marks.push({ result, counts });
  }

  /** The process is gone: what it wrote is what it left (a later process may write on in the same files). */
  private left: Map<string, string[]> | null = null;
  freeze(): void {
    this.left ??= readJsonl(this.projects);
  }

  /** The files as the process left them (or as they stand now), with the marks, each string put through `replace`. */
  snapshot(replace: (s: string) => string): SessionFiles {
    const files = [...(this.left ?? readJsonl(this.projects))];
    return {
      files: files.map(([path, lines]) => ({ path: replace(path), lines: lines.map(replace) })),
      marks: this.marks.map((m) => ({
        result: replace(m.result),
        counts: files.map(([path, lines]) => Math.min(m.counts.get(path) ?? 0, lines.length)),
      })),
    };
  }
}

/** Writes recorded session files: all their lines, or as far as a result's mark says; `value` puts the vars in. */
export function writeSessionFiles(
  recorded: SessionFiles,
  value: (s: string) => string,
  upTo: { result: string } | 'all',
): void {
  const mark = upTo === 'all' ? null : recorded.marks.find((m) => value(m.result) === upTo.result);
  if (upTo !== 'all' && !mark) return;
  recorded.files.forEach((file, i) => {
    const lines = mark ? file.lines.slice(0, mark.counts[i] ?? 0) : file.lines;
    if (lines.length === 0) return;
    const path = value(file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, lines.map((l) => `${value(l)}\n`).join(''));
  });
}
