import { join } from 'node:path';
import { expect, it } from 'vitest';
import { Store } from '../../src/persistence/store.js';
import { tempDir } from '../support/temp.js';

it('threadsWhere names each thread once whose rows match every field, in SQL, and refuses a field that is not a name', () => {
  const t = tempDir('baton-where-');
  const store = Store.open(join(t.dir, 'baton.sqlite'));
  try {
    const insert = store.db.prepare(
      'INSERT INTO proj_graph_nodes (id, thread_id, ord, data, sequence) VALUES (?, ?, 0, ?, 1)',
    );
    const node = (id: string, threadId: string, kind: string, status: string) =>
      insert.run(id, threadId, JSON.stringify({ id, kind, status }));
    node('n1', 'thr_a', 'subagent', 'running');
    node('n2', 'thr_a', 'subagent', 'waiting');
    node('n3', 'thr_b', 'subagent', 'completed');
    node('n4', 'thr_c', 'tool_call', 'running');
    node('n5', 'thr_d', 'subagent', 'pending');
    const open = store.projections.threadsWhere('graph_nodes', {
      kind: ['subagent'],
      status: ['pending', 'running', 'waiting'],
    });
    expect(open.sort()).toEqual(['thr_a', 'thr_d']);
    expect(() => store.projections.threadsWhere('graph_nodes', { "kind') OR 1=1 --": ['x'] })).toThrow(
      /not a field name/,
    );
  } finally {
    store.close();
    t.cleanup();
  }
});
