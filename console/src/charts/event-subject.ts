/**
 * The actor a domain event is about, for the entity's event history: entity ids are the
 * app ids events carry (a run's row is keyed by its runId), so the subject is read from
 * the payload field the event's family names its entity by.
 */
type Payload = Record<string, unknown>;

const field = (p: Payload, key: string): string | null => (typeof p[key] === 'string' ? (p[key] as string) : null);
const nestedId = (p: Payload, key: string): string | null => {
  const o = p[key];
  return o && typeof o === 'object' && typeof (o as Payload).id === 'string' ? ((o as Payload).id as string) : null;
};

export function eventSubject(event: { type: string; threadId: string; payload: unknown }): string | null {
  const p = (event.payload ?? {}) as Payload;
  const family = event.type.slice(0, event.type.indexOf('.'));
  switch (family) {
    case 'thread':
      return event.threadId;
    case 'run':
      // A reorder is the supervisor's queue, not one run's.
      return event.type === 'run.queue-reordered' ? event.threadId : field(p, 'runId');
    case 'attempt':
      return field(p, 'attemptId') ?? nestedId(p, 'attempt');
    case 'node':
      return field(p, 'nodeId') ?? nestedId(p, 'node');
    case 'runtime-request':
      return field(p, 'requestId') ?? nestedId(p, 'request');
    case 'provider-session':
      return nestedId(p, 'session');
    case 'provider-thread':
      return field(p, 'providerThreadId') ?? nestedId(p, 'providerThread');
    case 'context-transfer':
      return field(p, 'transferId') ?? nestedId(p, 'transfer');
    case 'context-handoff':
      return field(p, 'handoffId');
    default:
      return null;
  }
}

/** A one-line account of an event's payload for the history list (ids and long text left out). */
export function eventSummary(event: { type: string; payload: unknown }): string {
  const p = (event.payload ?? {}) as Payload;
  const parts: string[] = [];
  for (const [key, value] of Object.entries(p)) {
    if (key.endsWith('Id') || key === 'threadId') continue;
    if (typeof value === 'string') parts.push(`${key}: ${value.length > 60 ? `${value.slice(0, 57)}…` : value}`);
    else if (typeof value === 'number' || typeof value === 'boolean') parts.push(`${key}: ${value}`);
    else if (value && typeof value === 'object' && 'status' in value)
      parts.push(`${key}.status: ${String(value.status)}`);
  }
  return parts.join(' · ');
}
