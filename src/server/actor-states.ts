import type { Statement } from 'better-sqlite3';
import { z } from 'zod';
import { EntityKind } from '../domain/entities.js';
import { ThreadId } from '../domain/ids.js';
import type { Store } from '../persistence/store.js';

/**
 * The `actors` query: the state of every persisted actor of a thread, read from its
 * entity row (the snapshot the last commit wrote), for the console's statechart viewer.
 * Types only come from the store, so the console can import the schemas.
 */
export const ActorsQuery = z
  .object({
    type: z.literal('actors'),
    threadId: ThreadId,
    /**
     * Only the actors whose row was written at or after this sequence. Inclusive: a commit
     * that writes no event stamps its rows with the sequence before it, so a client that
     * read at sequence S asks again from S and misses no row written since.
     */
    sinceSequence: z.number().int().nonnegative().optional(),
  })
  .strict();
export type ActorsQuery = z.infer<typeof ActorsQuery>;

/** An XState state value: a leaf's key, or a compound state's key to its child's value. */
export type StateValue = string | { [key: string]: StateValue };
export const StateValue: z.ZodType<StateValue> = z.lazy(() => z.union([z.string(), z.record(z.string(), StateValue)]));

export const ActorState = z.object({
  kind: EntityKind,
  id: z.string().min(1),
  /** The machine's id (`run`, `runAttempt`) and the version that wrote the snapshot. */
  machineId: z.string(),
  machineVersion: z.number().int(),
  state: StateValue,
  /** XState's actor status: `active`, `done` (a final state), `error`, `stopped`. */
  status: z.string(),
  /** The sequence of the commit that last wrote the row. */
  lastSequence: z.number().int().nonnegative(),
  updatedAt: z.number().int().nonnegative(),
});
export type ActorState = z.infer<typeof ActorState>;

export const ActorsResult = z.object({
  actors: z.array(ActorState),
  /** The last committed sequence when the rows were read (ask again with it as `sinceSequence`). */
  sequence: z.number().int().nonnegative(),
});
export type ActorsResult = z.infer<typeof ActorsResult>;

interface Row {
  entity_id: string;
  kind: string;
  machine_id: string;
  machine_version: number;
  state: string | null;
  status: string | null;
  last_sequence: number;
  updated_at: number;
}

// Only the state and status leave SQLite (`->` keeps the value as JSON): the snapshots'
// contexts can be large and are not what the viewer shows.
const statements = new WeakMap<Store, Statement<[string, number], Row>>();
const statementOf = (store: Store) => {
  let s = statements.get(store);
  if (!s) {
    s = store.db.prepare(
      `SELECT entity_id, kind, machine_id, machine_version, snapshot -> '$.value' AS state,
        snapshot ->> '$.status' AS status, last_sequence, updated_at
      FROM entities WHERE thread_id = ? AND last_sequence >= ? ORDER BY rowid`,
    );
    statements.set(store, s);
  }
  return s;
};

/**
 * The thread's actors in the order they were created, with the sequence they are read at:
 * one synchronous read, so no commit lands between the rows and the sequence.
 */
export function actorStates(store: Store, q: ActorsQuery): ActorsResult {
  const rows = statementOf(store).all(q.threadId, q.sinceSequence ?? 0);
  const actors = rows.map((r) =>
    ActorState.parse({
      kind: r.kind,
      id: r.entity_id,
      machineId: r.machine_id,
      machineVersion: r.machine_version,
      state: r.state === null ? '' : JSON.parse(r.state),
      status: r.status ?? 'active',
      lastSequence: r.last_sequence,
      updatedAt: r.updated_at,
    }),
  );
  return { actors, sequence: store.lastSequence() };
}
