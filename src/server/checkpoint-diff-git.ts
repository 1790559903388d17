import type { CheckpointStore } from '../checkpoints/checkpoint-store.js';
import { git, nulSplit, type ShadowRepo } from '../checkpoints/git.js';
import { BatonError } from '../domain/errors.js';
import type { Store } from '../persistence/store.js';
import {
  diffEnds,
  type CheckpointDiffFile,
  type CheckpointDiffQuery,
  type CheckpointDiffResult,
  type DiffLimits,
} from './checkpoint-diff.js';

export const defaultDiffLimits: DiffLimits = {
  files: 300,
  patchChars: 64_000,
  totalPatchChars: 400_000,
  fileBytes: 2 * 1024 * 1024,
};

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const ZERO = /^0+$/;
/** Pathspecs per git call, by their length: far below the system's limit on arguments. */
const ARGS_CHARS = 64_000;

/** Flags that keep a diff plain whatever a config or attribute would say (none is read, but still). */
const PLAIN = ['--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/'];

/** Answers the `checkpoint-diff` query from the thread's workspace's shadow repository. */
export async function checkpointDiff(
  store: Store,
  checkpoints: CheckpointStore | null,
  q: CheckpointDiffQuery,
  limits: DiffLimits = defaultDiffLimits,
): Promise<CheckpointDiffResult> {
  const { target, base } = diffEnds(
    q,
    (id) => store.projections.get('checkpoints', id) ?? null,
    (threadId) => store.projections.list('checkpoints', threadId),
  );
  if (!checkpoints) throw new BatonError('unsupported', 'no checkpoint store is configured');
  const cwd = store.projections.get('threads', target.threadId)?.workspace.cwd;
  const repo = cwd ? await checkpoints.reader(cwd) : null;
  if (!repo)
    throw new BatonError('not_found', `the files of checkpoint ${target.id} are no longer kept`, {
      checkpointId: target.id,
    });
  const diff = await treeDiff(repo, base?.treeRef ?? null, target.treeRef, limits);
  return { checkpointId: target.id, baseCheckpointId: base?.id ?? null, ...diff, limits };
}

interface Entry {
  path: string;
  status: CheckpointDiffFile['status'];
  /** The two blobs' ids (zeros for none). */
  shas: [string, string];
}

/**
 * The files that differ between two trees (from nothing when `from` is null), in path
 * order, with their patches, all within `limits`: the list is cut at `limits.files`; a file
 * whose versions are too large is not diffed; each patch is cut at a line past
 * `limits.patchChars`, and once the answer holds `limits.totalPatchChars` the rest are left
 * out. Whatever is cut is marked.
 */
export async function treeDiff(
  repo: ShadowRepo,
  from: string | null,
  to: string,
  limits: DiffLimits,
): Promise<Pick<CheckpointDiffResult, 'files' | 'totalFiles' | 'truncated'>> {
  const ends = [from ? `${from}^{tree}` : EMPTY_TREE, `${to}^{tree}`];
  const all = parseRaw(await bare(repo, ['diff-tree', '-r', '-z', '--raw', ...PLAIN, ...ends]));
  const listed = all.slice(0, limits.files);
  const counts = await numstat(repo, ends, listed);
  const sizes = await blobSizes(repo, listed);
  // Which files are diffed: the binary ones (git writes one line for them) and the text ones
  // within the limits; all together weigh at most four files' worth, so git's output stays a few MiB.
  let budget = limits.fileBytes * 4;
  const diffed = listed.filter((e) => {
    if (counts.get(e.path)?.binary) return true;
    const bytes = (sizes.get(e.shas[0]) ?? 0) + (sizes.get(e.shas[1]) ?? 0);
    if (bytes > limits.fileBytes || bytes > budget) return false;
    budget -= bytes;
    return true;
  });
  const patches = await patchesOf(repo, ends, diffed);
  let left = limits.totalPatchChars;
  let truncated = listed.length < all.length;
  const files = listed.map((e): CheckpointDiffFile => {
    const count = counts.get(e.path) ?? { additions: 0, deletions: 0, binary: false };
    const whole = patches.get(e.path);
    const patch = whole === undefined ? '' : cut(whole, Math.min(limits.patchChars, left));
    left -= patch.length;
    const cutShort = whole === undefined || patch.length < whole.length;
    truncated ||= cutShort;
    return { path: e.path, status: e.status, ...count, patch, truncated: cutShort };
  });
  return { files, totalFiles: all.length, truncated };
}

/** git in the shadow git dir, no work tree: only objects are read. */
const bare = (repo: ShadowRepo, args: string[], input?: string) =>
  git(repo, args, input === undefined ? { bare: true } : { bare: true, input });

/** `diff-tree --raw -z`: ":mode mode sha sha S" then the path, each NUL-ended. */
function parseRaw(out: string): Entry[] {
  const fields = nulSplit(out);
  const entries: Entry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [, , a, b, letter] = fields[i]!.split(' ');
    const status = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
    entries.push({ path: fields[i + 1]!, status, shas: [a ?? '', b ?? ''] });
  }
  return entries;
}

const literal = (path: string) => `:(literal)${path}`;

/** Runs git once per slice of the pathspecs (a long list would not fit one command line). */
async function perSlice(entries: Entry[], run: (pathspecs: string[]) => Promise<string>): Promise<string[]> {
  const outs: string[] = [];
  for (let i = 0; i < entries.length;) {
    const slice: string[] = [];
    for (let chars = 0; i < entries.length && (slice.length === 0 || chars < ARGS_CHARS); i++) {
      slice.push(literal(entries[i]!.path));
      chars += entries[i]!.path.length + 12;
    }
    outs.push(await run(slice));
  }
  return outs;
}

/** Lines added and deleted per file (`-` for a binary file). */
async function numstat(repo: ShadowRepo, ends: string[], entries: Entry[]) {
  const counts = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  const outs = await perSlice(entries, (specs) =>
    bare(repo, ['diff-tree', '-r', '-z', '--numstat', ...PLAIN, ...ends, '--', ...specs]),
  );
  for (const field of outs.flatMap(nulSplit)) {
    const [a, d, ...rest] = field.split('\t');
    const binary = a === '-';
    counts.set(rest.join('\t'), { additions: binary ? 0 : Number(a), deletions: binary ? 0 : Number(d), binary });
  }
  return counts;
}

/** The size of each blob (a submodule's commit is not in the repository: it weighs nothing here). */
async function blobSizes(repo: ShadowRepo, entries: Entry[]): Promise<Map<string, number>> {
  const shas = [...new Set(entries.flatMap((e) => e.shas))].filter((s) => s && !ZERO.test(s));
  const sizes = new Map<string, number>();
  if (!shas.length) return sizes;
  const out = await bare(repo, ['cat-file', '--batch-check=%(objectname) %(objectsize)'], `${shas.join('\n')}\n`);
  for (const line of out.split('\n')) {
    const [sha, size] = line.split(' ');
    if (sha && size && /^\d+$/.test(size)) sizes.set(sha, Number(size));
  }
  return sizes;
}

/**
 * Each file's patch by its path. One `diff-tree -p` per slice, split at its `diff --git`
 * headers; a header names its file as git writes it (quoted when the path needs it), so a
 * pathspec that also matched another path (a file that replaced a folder) costs nothing,
 * and a change of type (two patches under one header) stays one file's.
 */
async function patchesOf(repo: ShadowRepo, ends: string[], entries: Entry[]): Promise<Map<string, string>> {
  const byHeader = new Map(
    entries.map((e) => [`diff --git ${quoted(`a/${e.path}`)} ${quoted(`b/${e.path}`)}`, e.path]),
  );
  const patches = new Map<string, string>();
  const outs = await perSlice(entries, (specs) =>
    bare(repo, ['diff-tree', '-r', '-p', ...PLAIN, ...ends, '--', ...specs]),
  );
  for (const out of outs) {
    for (const chunk of out.split(/^(?=diff --git )/m)) {
      const path = byHeader.get(chunk.slice(0, chunk.indexOf('\n')));
      if (path !== undefined) patches.set(path, (patches.get(path) ?? '') + chunk);
    }
  }
  return patches;
}

const escapes: Record<string, string> = {
  '\x07': 'a',
  '\b': 'b',
  '\t': 't',
  '\n': 'n',
  '\v': 'v',
  '\f': 'f',
  '\r': 'r',
};

/** A path as git quotes it with core.quotepath off: only `"`, `\` and control characters make it quoted. */
export function quoted(path: string): string {
  if (!/["\\\x00-\x1f\x7f]/.test(path)) return path;
  const body = path.replace(/["\\\x00-\x1f\x7f]/g, (c) =>
    c === '"' || c === '\\'
      ? `\\${c}`
      : escapes[c]
        ? `\\${escapes[c]}`
        : `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`,
  );
  return `"${body}"`;
}

/** At most `max` characters of a patch, ended at a line. */
function cut(patch: string, max: number): string {
  if (patch.length <= max) return patch;
  if (max <= 0) return '';
  const end = patch.lastIndexOf('\n', max - 1);
  return end < 0 ? '' : patch.slice(0, end + 1);
}
