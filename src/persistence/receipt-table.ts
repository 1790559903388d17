import type { Statement } from 'better-sqlite3';
import { Receipt, type NewReceipt } from '../domain/receipts.js';
import type { Db } from './database.js';
import { storedForm } from './json-form.js';

interface ReceiptRow {
  body: string;
}

/** Command receipts, keyed by the client's commandId. */
export class ReceiptTable {
  private readonly insert: Statement;
  private readonly byId: Statement<[string], ReceiptRow>;

  constructor(db: Db) {
    this.insert = db.prepare(
      'INSERT INTO command_receipts (command_id, command_type, thread_id, ok, sequence, body, at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (command_id) DO NOTHING',
    );
    this.byId = db.prepare('SELECT body FROM command_receipts WHERE command_id = ?');
  }

  get(commandId: string): Receipt | null {
    const row = this.byId.get(commandId);
    return row ? (JSON.parse(row.body) as Receipt) : null;
  }

  /**
   * Stores a command's receipt unless its commandId has one: one statement is both the
   * duplicate check and the write. False when a receipt was there (it is kept).
   */
  add(receipt: NewReceipt, sequence: number, at: number): boolean {
    const form = storedForm(Receipt, stamp(receipt, sequence, at));
    if (!form.ok) throw form.error;
    const stored = form.value;
    const { changes } = this.insert.run(
      stored.commandId,
      stored.commandType,
      stored.threadId,
      stored.ok ? 1 : 0,
      sequence,
      form.json,
      at,
    );
    return changes === 1;
  }
}

/** The receipt with its sequence and time, its keys in the schema's order. */
function stamp(receipt: NewReceipt, sequence: number, at: number): unknown {
  const { commandId, commandType, threadId } = receipt;
  return receipt.ok
    ? { ok: true, commandId, commandType, threadId, sequence, result: receipt.result, at }
    : { ok: false, commandId, commandType, threadId, sequence, error: receipt.error, at };
}
