import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from '../support/temp.js';

const loop = fileURLToPath(new URL('../fixtures/commit-loop.ts', import.meta.url));

/** Starts the committing child and SIGKILLs it once it has reported `commitsBeforeKill` more commits. */
function runAndKill(dbPath: string, commitsBeforeKill: number): Promise<{ lastReported: number; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', loop, dbPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = 0;
    let lastReported = 0;
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child made no progress: ${stderr}`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        lastReported = Number(line);
        seen += 1;
        if (seen === commitsBeforeKill) child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ lastReported, signal });
    });
    child.on('error', reject);
  });
}

/** Every stored unit is whole: one event, its snapshot, projection row, effect and receipt. */
function expectWholeUnits(store: Store): number {
  const count = (sql: string) => (store.db.prepare(sql).get() as { n: number }).n;
  const last = store.lastSequence();
  expect(count('SELECT count(*) AS n FROM events')).toBe(last);
  expect(count('SELECT count(DISTINCT sequence) AS n FROM events WHERE sequence BETWEEN 1 AND (SELECT max(sequence) FROM events)')).toBe(last);
  for (const table of ['command_receipts', 'entities', 'outbox', 'proj_runs']) {
    expect(count(`SELECT count(*) AS n FROM ${table}`), table).toBe(last);
  }
  // Each unit's parts carry the same number and agree on its sequence.
  expect(
    count(`SELECT count(*) AS n FROM events e
      JOIN command_receipts r ON r.command_id = 'cmd_thr_crash_' || e.sequence AND r.sequence = e.sequence
      JOIN entities n ON n.entity_id = 'run_thr_crash_' || e.sequence AND n.last_sequence = e.sequence
      JOIN outbox o ON o.effect_id = 'eff_thr_crash_' || e.sequence AND o.causation_event_id = e.event_id
      JOIN proj_runs p ON p.id = 'run_thr_crash_' || e.sequence AND p.sequence = e.sequence
      WHERE e.event_id = 'evt_thr_crash_' || e.sequence`),
  ).toBe(last);
  expect(store.db.pragma('integrity_check', { simple: true })).toBe('ok');
  return last;
}

describe('crash safety', () => {
  it('keeps every committed unit whole and the sequence gap-free across 24 SIGKILLs', async () => {
    const { dir, cleanup } = tempDir();
    const dbPath = join(dir, 'crash.sqlite');
    try {
      const kills = fc.sample(fc.integer({ min: 1, max: 60 }), { numRuns: 24, seed: 20261130 });
      let previous = 0;
      for (const commitsBeforeKill of kills) {
        const { lastReported, signal } = await runAndKill(dbPath, commitsBeforeKill);
        expect(signal).toBe('SIGKILL');
        const store = Store.open(dbPath);
        const last = expectWholeUnits(store);
        // Nothing reported as committed is lost; at most the in-flight unit is beyond it.
        expect(last).toBeGreaterThanOrEqual(lastReported);
        expect(last).toBeGreaterThan(previous);
        previous = last;
        store.close();
      }
    } finally {
      cleanup();
    }
  }, 180_000);
});
