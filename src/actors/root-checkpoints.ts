import type { Checkpoint } from '../domain/entities.js';
import type { Store } from '../persistence/store.js';

/** The newest live root checkpoint of a thread at an ordinal: what a rollback restores and the next run diffs against. */
export function rootCheckpointAt(store: Store, threadId: string, ordinal: number): Checkpoint | null {
  const rows = store.projections
    .list('checkpoints', threadId)
    .filter((c) => c.scopeKind === 'root_run' && c.status !== 'stale' && c.runOrdinal === ordinal);
  return rows.at(-1) ?? null;
}
