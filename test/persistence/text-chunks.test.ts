import { describe, expect, it } from 'vitest';
import type { ProjectionChange } from '../../src/domain/projections.js';
import { useTempStore } from '../support/store.js';

const open = useTempStore();

const message = (text: string): ProjectionChange => ({
  projection: 'messages',
  op: 'upsert',
  id: 'msg_1',
  threadId: 'thr_1',
  ord: 0,
  row: {
    id: 'msg_1' as never,
    threadId: 'thr_1' as never,
    runId: null,
    nodeId: null,
    role: 'assistant',
    text,
    completed: false,
    rolledBack: false,
  },
});
const append = (text: string): ProjectionChange => ({
  projection: 'messages',
  op: 'append',
  id: 'msg_1',
  field: 'text',
  text,
});
const chunkCount = (db: { prepare(sql: string): { get(): unknown } }) =>
  (db.prepare('SELECT count(*) AS n FROM proj_text_chunks').get() as { n: number }).n;

describe('appended text chunks', () => {
  it('read back as the whole text, after a reopen too; a full write folds them in', () => {
    const { store, reopen } = open();
    store.commit({ projections: [message('a')] });
    store.commit({ projections: [append('b')] });
    store.commit({ projections: [append('cd')] });
    expect(store.projections.get('messages', 'msg_1')?.text).toBe('abcd');
    expect(store.projections.list('messages', 'thr_1').map((m) => m.text)).toEqual(['abcd']);
    const again = reopen();
    expect(again.projections.get('messages', 'msg_1')?.text).toBe('abcd');
    again.commit({ projections: [message('final')] });
    expect(chunkCount(again.db)).toBe(0);
    expect(again.projections.get('messages', 'msg_1')?.text).toBe('final');
  });

  it('are refused for a projection that does not stream text, and nothing is written', () => {
    const { store } = open();
    const bad = {
      projection: 'runs',
      op: 'append',
      id: 'run_1',
      field: 'text',
      text: 'x',
    } as unknown as ProjectionChange;
    expect(() => store.commit({ projections: [append('ok'), bad] })).toThrow(
      expect.objectContaining({ code: 'invalid_payload' }),
    );
    expect(chunkCount(store.db)).toBe(0);
  });

  it('go with their row when it is deleted', () => {
    const { store } = open();
    store.commit({ projections: [message('a'), append('b')] });
    store.commit({ projections: [{ projection: 'messages', op: 'delete', id: 'msg_1' }] });
    expect(chunkCount(store.db)).toBe(0);
    expect(store.projections.get('messages', 'msg_1')).toBeNull();
  });
});
