import type { Statement } from 'better-sqlite3';
import { Receipt, type NewReceipt } from '../domain/receipts.js';
import type { Db } from './database.js';

interface ReceiptRow {
  body: string;
}

/** Command receipts, keyed by the client's commandId. */
export class ReceiptTable {
  private readonly insert: Statement;
  private readonly byId: Statement<[string], ReceiptRow>;

  constructor(db: Db) {
    this.insert = db.prepare(
      'INSERT INTO command_receipts (command_id, command_type, thread_id, ok, sequence, body, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.byId = db.prepare('SELECT body FROM command_receipts WHERE command_id = ?');
  }

  get(commandId: string): Receipt | null {
    const row = this.byId.get(commandId);
    return row ? (JSON.parse(row.body) as Receipt) : null;
  }

  put(receipt: NewReceipt, sequence: number, at: number): Receipt {
    const stored = Receipt.parse({ ...receipt, sequence, at });
    this.insert.run(
      stored.commandId,
      stored.commandType,
      stored.threadId,
      stored.ok ? 1 : 0,
      sequence,
      JSON.stringify(stored),
      at,
    );
    return stored;
  }
}
