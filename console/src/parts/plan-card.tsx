import { useState } from 'preact/hooks';
import { PlanArtifactId } from '../../../src/domain/ids.js';
import type { TurnItemView } from '../../../src/domain/projections.js';
import { send } from '../commands.js';
import { useConsole } from '../live/use-stream.js';

/**
 * A proposed plan, and once it is final, the button that implements it: a new run of this
 * thread out of plan mode, told the plan (`plan.implement`; it queues behind a run still going).
 */
export function PlanCard({ item }: { item: TurnItemView }) {
  const { client } = useConsole();
  const [busy, setBusy] = useState(false);
  const final = item.status === 'final';
  const implement = async () => {
    setBusy(true);
    await send(client, 'plan.implement', { planId: PlanArtifactId.parse(item.id) });
    setBusy(false);
  };
  return (
    <div class="item plan proposed" data-plan-id={item.id}>
      <div class="row spread wrap">
        <span class="item-label">Plan{final ? '' : ' · updating…'}</span>
        {final && (
          <button type="button" onClick={implement} disabled={busy}>
            Implement
          </button>
        )}
      </div>
      <div class="text">{item.text}</div>
    </div>
  );
}
