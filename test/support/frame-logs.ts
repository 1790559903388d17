import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameRecord } from '../../src/providers/transport/diagnostics.js';

/** Every record of the frame logs in `dir` (each session's files, oldest record first). */
export function readFrameLogs(dir: string): FrameRecord[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.ndjson'))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as FrameRecord)
    .sort((a, b) => a.at - b.at);
}
