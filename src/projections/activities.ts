import type { DomainEvent, EventType } from '../domain/events.js';
import type { Activity, ActivityKind } from '../domain/projections.js';
import type { ProjectionOverlay } from './overlay.js';
import { updateThread } from './thread-shell.js';

/**
 * The activities read model: the execution graph's events as a feed (tools and subagents
 * started and ended, approvals and questions asked and settled, plans updated, checkpoints
 * captured, runtime warnings), each keyed by run and node. Pure like the projector; it
 * runs before the projector's own handler so it sees the rows as they were.
 */
type Projected<K extends EventType> = Pick<DomainEvent<K>, 'type' | 'payload' | 'threadId' | 'at'>;
type Handler<K extends EventType> = (
  e: Projected<K>,
  view: ProjectionOverlay,
  add: (a: Omit<Activity, 'id' | 'threadId' | 'position' | 'at'>) => void,
) => void;

const ended = new Set(['completed', 'interrupted', 'failed', 'cancelled', 'rolled_back']);

/** The nodes whose start and end are activities: a tool's, a subagent's. */
const nodeActivities: Partial<Record<string, { started: ActivityKind; ended: ActivityKind; untitled: string }>> = {
  tool_call: { started: 'tool.started', ended: 'tool.completed', untitled: 'tool' },
  subagent: { started: 'subagent.started', ended: 'subagent.completed', untitled: 'subagent' },
};
const requestActivity = (kind: string, settled: boolean): ActivityKind =>
  kind === 'user_input'
    ? settled
      ? 'user_input.resolved'
      : 'user_input.requested'
    : settled
      ? 'approval.resolved'
      : 'approval.requested';

function settled(
  view: ProjectionOverlay,
  requestId: string,
  status: string,
  add: Parameters<Handler<EventType>>[2],
): void {
  const r = view.get('requests', requestId);
  if (!r || (r.status !== 'pending' && r.status !== 'answering')) return;
  add({ runId: r.runId, nodeId: r.nodeId, kind: requestActivity(r.kind, true), title: r.prompt, status });
}

const handlers: { [K in EventType]?: Handler<K> } = {
  'node.created': ({ payload: { node } }, _view, add) => {
    const of = nodeActivities[node.kind];
    if (of)
      add({ runId: node.runId, nodeId: node.id, kind: of.started, title: node.title ?? of.untitled, status: null });
  },
  'node.status-changed': ({ payload: p }, view, add) => {
    const node = view.get('graph_nodes', p.nodeId);
    const of = node && nodeActivities[node.kind];
    if (of && ended.has(p.to) && !ended.has(node.status))
      add({ runId: p.runId, nodeId: p.nodeId, kind: of.ended, title: node.title ?? of.untitled, status: p.to });
  },
  'runtime-request.opened': ({ payload: { request: r } }, _view, add) =>
    add({ runId: r.runId, nodeId: r.nodeId, kind: requestActivity(r.kind, false), title: r.prompt, status: r.status }),
  'runtime-request.resolved': ({ payload: p }, view, add) => settled(view, p.requestId, p.decision ?? 'resolved', add),
  'runtime-request.expired': ({ payload: p }, view, add) => settled(view, p.requestId, 'expired', add),
  'runtime-request.cancelled': ({ payload: p }, view, add) => settled(view, p.requestId, 'cancelled', add),
  'plan.updated': ({ payload: { plan } }, view, add) => {
    if (plan.kind === 'questions') return; // the question's request is the activity
    const before = view.get('plans', plan.id);
    // A todo list is news whenever its steps change; a proposed plan (streamed) once it is finished.
    const news =
      plan.kind === 'proposed_plan'
        ? plan.final && !before?.final
        : !before || before.text !== plan.text || JSON.stringify(before.steps) !== JSON.stringify(plan.steps);
    if (!news) return;
    const title =
      plan.kind === 'todo_list'
        ? plan.steps.map((s) => `${s.status === 'completed' ? '[x]' : '[ ]'} ${s.text}`).join('\n')
        : (plan.text ?? '');
    add({ runId: plan.runId, nodeId: plan.nodeId, kind: 'plan.updated', title, status: plan.kind });
  },
  'checkpoint.recorded': ({ payload: { checkpoint: c } }, _view, add) =>
    add({
      runId: c.runId,
      nodeId: c.nodeId,
      kind: 'checkpoint.captured',
      title: c.reason ?? (c.runOrdinal === null ? `${c.scopeKind} checkpoint` : `checkpoint ${c.runOrdinal}`),
      status: c.status,
    }),
  'runtime.warning': ({ payload: p }, _view, add) =>
    add({ runId: p.runId, nodeId: null, kind: 'runtime.warning', title: p.message, status: null }),
};

/** The event types that can add an activity: what the activities stream carries. */
export const activityEventTypes: ReadonlySet<EventType> = new Set(Object.keys(handlers) as EventType[]);

export function projectActivity<K extends EventType>(event: Projected<K>, view: ProjectionOverlay): void {
  const handler: Handler<K> | undefined = handlers[event.type];
  handler?.(event, view, (a) => {
    const shell = updateThread(view, event.threadId, event.at, (t) => ({ activityCount: (t.activityCount ?? 0) + 1 }));
    if (!shell) return;
    const position = shell.activityCount - 1;
    const id = `act_${event.threadId}_${position}`;
    view.put(
      'activities',
      id,
      event.threadId,
      { ...a, id, threadId: event.threadId, position, at: event.at },
      position,
    );
  });
}
