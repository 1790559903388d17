/**
 * How the charts label a transition's guard and actions, shared by the exported charts
 * (scripts/statechart-export.ts) and the console's viewer, so both say the same.
 */

/** A guard as the charts write it: `a ∧ b`, `¬a`, `isBarrierStep(flush_text)`; from the machine or from its exported JSON. */
export function guardLabel(guard: unknown): string {
  if (!guard) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const g = guard as { name?: string; guards?: unknown[]; guard?: unknown };
    if (g.guards) return g.guards.map(guardLabel).join(g.name === 'or' ? ' ∨ ' : ' ∧ ');
    if (g.name === 'not') return `¬${guardLabel(g.guard)}`;
    return g.name || 'guard';
  }
  const o = guard as { type?: string; params?: Record<string, unknown>; guards?: unknown[] };
  // The composite guards as the exported JSON writes them (scripts/statechart-export.ts).
  if (o.type === 'xstate.and' || o.type === 'xstate.or')
    return (o.guards ?? []).map(guardLabel).join(o.type === 'xstate.or' ? ' ∨ ' : ' ∧ ');
  if (o.type === 'xstate.not') return `¬${guardLabel(o.guards?.[0])}`;
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
