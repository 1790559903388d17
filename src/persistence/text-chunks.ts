import type { Statement } from 'better-sqlite3';
import { appendToRow, type AppendField } from '../domain/projections.js';
import type { Db } from './database.js';

/**
 * Appended text of projection rows (`proj_text_chunks`, issue 12). A streamed delta costs
 * one small insert here whatever the length of the text it extends, instead of a rewrite
 * of the whole row; a reader folds the chunks back into the row, so every reader sees the
 * same row as if each delta had rewritten it.
 */
export class TextChunks {
  private readonly insert: Statement<[string, string, string, string]>;
  private readonly clear: Statement<[string, string]>;
  private readonly ofRow: Statement<[string, string], { field: string; text: string }>;

  constructor(db: Db) {
    this.insert = db.prepare('INSERT INTO proj_text_chunks (projection, row_id, field, text) VALUES (?, ?, ?, ?)');
    this.clear = db.prepare('DELETE FROM proj_text_chunks WHERE projection = ? AND row_id = ?');
    this.ofRow = db.prepare(
      'SELECT field, text FROM proj_text_chunks WHERE projection = ? AND row_id = ? ORDER BY chunk',
    );
  }

  append(projection: string, id: string, field: AppendField, text: string): void {
    this.insert.run(projection, id, field, text);
  }

  /** A full write or delete of the row: its chunks are folded into it, or gone with it. */
  drop(projection: string, id: string): void {
    this.clear.run(projection, id);
  }

  /** The stored row with its chunks appended in order. */
  fold<R>(projection: string, id: string, row: R): R {
    const chunks = this.ofRow.all(projection, id);
    if (chunks.length === 0) return row;
    // Consecutive chunks of one field are joined first: one row copy per run, not per chunk.
    let out = row;
    let field = chunks[0]!.field as AppendField;
    let parts: string[] = [];
    for (const c of chunks) {
      if (c.field !== field) {
        out = appendToRow(out, field, parts.join(''));
        field = c.field as AppendField;
        parts = [];
      }
      parts.push(c.text);
    }
    return appendToRow(out, field, parts.join(''));
  }
}
