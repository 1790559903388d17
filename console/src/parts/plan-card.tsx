import { useState } from 'preact/hooks';
import { PlanArtifactId, ThreadId } from '../../../src/domain/ids.js';
import type { TurnItemView } from '../../../src/domain/projections.js';
import { send } from '../commands.js';
import { useConsole } from '../live/use-stream.js';

/**
 * A proposed plan, and once it is final, the button that implements it: a new run of the
 * thread shown (`threadId`: a fork showing its source's plan implements it itself) out of
 * plan mode, told the plan (`plan.implement`; it queues behind a run still going). A plan
 * of a rolled-back run is shown without it.
 */
export function PlanCard({ item, threadId }: { item: TurnItemView; threadId: string }) {
  const { client } = useConsole();
  const [busy, setBusy] = useState(false);
  const final = item.status === 'final';
  const implement = async () => {
    setBusy(true);
    const here = item.threadId === threadId ? {} : { threadId: ThreadId.parse(threadId) };
    await send(client, 'plan.implement', { planId: PlanArtifactId.parse(item.id), ...here });
    setBusy(false);
  };
  return (
    <div class="item plan proposed" data-plan-id={item.id}>
      <div class="row spread wrap">
        <span class="item-label">Plan{final ? '' : ' · updating…'}</span>
        {final && !item.rolledBack && (
          <button type="button" onClick={implement} disabled={busy}>
            Implement
          </button>
        )}
      </div>
      <div class="text">{item.text}</div>
    </div>
  );
}
