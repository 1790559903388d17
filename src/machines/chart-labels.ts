/**
 * How the charts label a transition's guard and actions, shared by the exported charts
 * (scripts/statechart-export.ts) and the console's viewer, so both say the same.
 */

/** A guard as the charts write it: `a ∧ b`, `¬a`, `isBarrierStep(flush_text)`. */
export function guardLabel(guard: unknown): string {
  if (!guard) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const g = guard as { name?: string; guards?: unknown[]; guard?: unknown };
    if (g.guards) return g.guards.map(guardLabel).join(g.name === 'or' ? ' ∨ ' : ' ∧ ');
    if (g.name === 'not') return `¬${guardLabel(g.guard)}`;
    return g.name || 'guard';
  }
  const o = guard as { type?: string; params?: Record<string, unknown> };
  const params = o.params
    ? Object.values(o.params)
        .map((v) => (Array.isArray(v) ? v.join('|') : String(v)))
        .join(',')
    : '';
  return params ? `${o.type}(${params})` : (o.type ?? 'guard');
}

/** Named actions (inline anonymous ones have no name to show). */
export function actionNames(actions: readonly unknown[] | undefined): string[] {
  return (actions ?? [])
    .map((a) => (typeof a === 'string' ? a : typeof a === 'object' && a && 'type' in a ? String(a.type) : ''))
    .filter(Boolean);
}
