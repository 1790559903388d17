import { BatonError } from '../domain/errors.js';
import type { ProjectionRow } from '../domain/projections.js';
import type { Store } from '../persistence/store.js';
import { supervisorContext, supervisorOf, type Handler } from './command-checks.js';
import { queueOwnRun } from './own-runs.js';

type PlanRow = ProjectionRow<'plans'>;

/** The message that implements a plan: the plan in full, so the run needs nothing said before it. */
export function implementPlanText(plan: Pick<PlanRow, 'text'>): string {
  return `Implement this plan:\n\n${plan.text ?? ''}`.trimEnd();
}

/** Whether `threadId` is `ancestorId` or a fork of it (of a fork of it...). */
function descendsFrom(threadId: string, ancestorId: string, store: Store): boolean {
  const seen = new Set<string>();
  for (let id: string | null = threadId; id !== null && !seen.has(id);) {
    if (id === ancestorId) return true;
    seen.add(id);
    id = store.projections.get('threads', id)?.lineage.forkedFrom?.threadId ?? null;
  }
  return false;
}

/**
 * `plan.implement`: a new run that implements a proposed plan, in the plan's thread or in a
 * fork of it, or of a fork of it (the user's choice: fork first, then implement there). The run is out of plan
 * mode (a thread in plan mode goes to `default` first, as `thread.settings.update` would),
 * is told the plan in full, and names it as its origin. It queues behind a run still going,
 * never steers it. Refused, with nothing stored: an unknown plan (`not_found`), a todo list
 * or questions (`invalid_command`), a plan still being written (`invalid_transition`), a
 * thread that is neither the plan's nor a fork of it (`invalid_command`).
 */
export const implementPlan: Handler<'plan.implement'> = (thread, c, env) => {
  const plan = env.store.projections.get('plans', c.planId);
  if (!plan) throw new BatonError('not_found', `no plan ${c.planId}`);
  if (plan.kind !== 'proposed_plan')
    throw new BatonError('invalid_command', `plan ${c.planId} is a ${plan.kind}: only a proposed plan is implemented`, {
      kind: plan.kind,
    });
  if (!plan.final)
    throw new BatonError('invalid_transition', `plan ${c.planId} is still being written`, { runId: plan.runId });
  if (!descendsFrom(thread.threadId, plan.threadId, env.store))
    throw new BatonError(
      'invalid_command',
      `thread ${thread.threadId} is neither plan ${c.planId}'s thread nor a fork of it`,
      { planThreadId: plan.threadId },
    );
  const before = supervisorContext(thread);
  const leftPlanMode = before.interactionMode === 'plan';
  if (leftPlanMode)
    thread.deliver(
      supervisorOf(thread),
      { type: 'SETTINGS_UPDATE', changes: { interactionMode: 'default' } },
      { mustAccept: true },
    );
  const sup = supervisorContext(thread);
  const runId = queueOwnRun(
    thread,
    sup,
    { text: implementPlanText(plan), origin: { kind: 'plan_implementation', planId: c.planId } },
    { mustAccept: true },
  );
  const dispatched = supervisorContext(thread).activeRunId === runId ? 'started' : 'queued';
  const messageId = thread.context({ kind: 'run', id: runId })?.userMessageId;
  return { runId, messageId, dispatched, interactionMode: sup.interactionMode, leftPlanMode };
};
