import type { Statement } from 'better-sqlite3';
import type { IdentityBinding } from '../domain/entities.js';
import { BatonError } from '../domain/errors.js';
import type { Db } from './database.js';

interface BindingRow {
  provider: IdentityBinding['provider'];
  scope: string;
  native_ref: string;
  app_id: string;
  entity_kind: string;
  correlation: IdentityBinding['correlation'];
}

const toBinding = (r: BindingRow): IdentityBinding => ({
  provider: r.provider,
  scope: r.scope,
  nativeRef: r.native_ref,
  appId: r.app_id,
  entityKind: r.entity_kind,
  correlation: r.correlation,
});

/**
 * Scoped native ref -> app id. A native ref is only meaningful inside its scope
 * (provider + session + thread, thread + turn, turn + item); a ref that is already bound
 * to another app id in the same scope is a conflict, never a silent rebind.
 */
export class BindingTable {
  private readonly insert: Statement;
  private readonly lookup: Statement<[string, string, string], BindingRow>;
  private readonly byApp: Statement<[string], BindingRow>;

  constructor(db: Db) {
    this.insert =
      db.prepare(`INSERT INTO identity_bindings (provider, scope, native_ref, app_id, entity_kind, correlation, created_sequence)
      VALUES (?, ?, ?, ?, ?, ?, ?)`);
    this.lookup = db.prepare('SELECT * FROM identity_bindings WHERE provider = ? AND scope = ? AND native_ref = ?');
    this.byApp = db.prepare('SELECT * FROM identity_bindings WHERE app_id = ? ORDER BY created_sequence');
  }

  put(b: IdentityBinding, sequence: number): void {
    const existing = this.resolve(b.provider, b.scope, b.nativeRef);
    if (existing) {
      if (existing.appId === b.appId) return;
      throw new BatonError(
        'binding_conflict',
        `${b.provider} ref ${b.nativeRef} in ${b.scope} is bound to ${existing.appId}`,
        {
          existing,
          requested: b,
        },
      );
    }
    this.insert.run(b.provider, b.scope, b.nativeRef, b.appId, b.entityKind, b.correlation, sequence);
  }

  resolve(provider: string, scope: string, nativeRef: string): IdentityBinding | null {
    const row = this.lookup.get(provider, scope, nativeRef);
    return row ? toBinding(row) : null;
  }

  forApp(appId: string): IdentityBinding[] {
    return this.byApp.all(appId).map(toBinding);
  }
}
