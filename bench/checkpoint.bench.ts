import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CheckpointStore } from '../src/checkpoints/checkpoint-store.js';
import { tempDir } from '../test/support/temp.js';
import { fmt, type BenchSection } from './measure.js';

const FILES = 10_000;
const CHANGED = 10;
const ROUNDS = 15;

function makeWorkspace(dir: string): void {
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(dir, `pkg${d}`), { recursive: true });
    for (let f = 0; f < 100; f++)
      writeFileSync(join(dir, `pkg${d}`, `file${f}.ts`), `export const v${d}_${f} = ${d * 100 + f};\n`);
  }
}

function touch(dir: string, round: number): void {
  for (let i = 0; i < CHANGED; i++)
    writeFileSync(join(dir, `pkg${i * 7}`, `file${round % 100}.ts`), `export const changed = ${round}_${i};\n`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

/** Capture and restore of a 10,000-file workspace with 10 changed files, beside plain git. */
export async function benchCheckpoints(): Promise<BenchSection> {
  const root = tempDir('baton-bench-ckpt-');
  try {
    const ws = join(root.dir, 'ws');
    const plain = join(root.dir, 'plain');
    mkdirSync(ws);
    makeWorkspace(ws);
    cpSync(ws, plain, { recursive: true });

    // Baseline: `git add -A && git write-tree` in an ordinary repository holding the same tree.
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    execFileSync('git', ['init', '-q'], { cwd: plain, env });
    execFileSync('sh', ['-c', 'git add -A && git write-tree'], { cwd: plain, env });
    const store = new CheckpointStore({ root: join(root.dir, 'checkpoints') });
    let previous = (await store.capture(ws, 'bench/0', null)).commit;
    const first = previous;
    // Interleaved rounds, so a busy moment on the machine hits both sides alike.
    const baseline: number[] = [];
    const capture: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      touch(plain, r);
      let t = process.hrtime.bigint();
      execFileSync('sh', ['-c', 'git add -A && git write-tree'], { cwd: plain, env });
      baseline.push(ms(t));
      touch(ws, r);
      t = process.hrtime.bigint();
      previous = (await store.capture(ws, `bench/${r + 1}`, previous)).commit;
      capture.push(ms(t));
    }
    const restore: number[] = [];
    for (let r = 0; r < 3; r++) {
      const t = process.hrtime.bigint();
      await store.restore(ws, r % 2 === 0 ? first : previous);
      restore.push(ms(t));
    }
    const ratio = median(capture) / median(baseline);
    return {
      title: 'Checkpoints (issue 4)',
      notes: [
        `A workspace of ${fmt(FILES)} small files in 100 folders; each round changes ${CHANGED} files. Median of ${ROUNDS} rounds (3 for restore).`,
        'Capture, in the shadow repository: a scan of untracked files for any over the size limit (`ls-files --others`), then `git add -A`, `write-tree` and a numstat diff against the previous checkpoint in one shell, and the tree kept by a ref written as a file.',
        'Baseline: `git add -A && git write-tree` in an ordinary repository holding the same tree, same machine, same run.',
      ],
      rows: [
        {
          metric: 'capture, 10 changed of 10,000 files',
          value: `${fmt(median(capture), 1)} ms`,
          baseline: `${fmt(median(baseline), 1)} ms plain git`,
          ratio: `${fmt(ratio, 2)}×`,
          target: '≤ 1.5× baseline',
          verdict: ratio <= 1.5 ? 'met' : 'missed',
        },
        {
          metric: 'restore (whole workspace to a checkpoint)',
          value: `${fmt(median(restore), 1)} ms`,
          baseline: `${fmt(median(baseline), 1)} ms plain git add+write-tree`,
          ratio: `${fmt(median(restore) / median(baseline), 2)}×`,
          target: 'info',
          verdict: 'info',
        },
      ],
    };
  } finally {
    root.cleanup();
  }
}
