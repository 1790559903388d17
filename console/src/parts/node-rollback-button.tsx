import { useState } from 'preact/hooks';
import { z } from 'zod';
import { CheckpointId, NodeId } from '../../../src/domain/ids.js';
import { send } from '../commands.js';
import { plural } from '../format.js';
import { useConsole } from '../live/use-stream.js';
import { ConfirmRollback, useConfirmFocus } from './rollback-button.js';

/** The parts of `rollback.node`'s result the console says (src/actors/rollback.ts). */
const NodeRolledBack = z.object({
  changedPaths: z.array(z.string()).default([]),
  parentOverlap: z.array(z.string()).default([]),
  conversation: z.enum(['nothing_to_drop', 'not_supported']).nullable().default(null),
  laterChildNodeIds: z.array(z.string()).default([]),
});
type NodeRolledBack = z.infer<typeof NodeRolledBack>;

/** What became of the files and of the subagent's own conversation, in sentences. */
function sentences(r: NodeRolledBack): string[] {
  const files = r.changedPaths.length
    ? `Restored ${plural(r.changedPaths.length, 'file')}: ${r.changedPaths.join(', ')}.`
    : 'The files were already as the subagent left them.';
  const conversation =
    r.conversation === 'nothing_to_drop'
      ? "The subagent's conversation ends at this turn: nothing in it to take back."
      : r.conversation === 'not_supported'
        ? `The subagent's own conversation still holds its ${plural(r.laterChildNodeIds.length, 'later turn')}: its provider cannot roll a subagent's thread back (a fork from this turn leaves them out).`
        : 'No provider conversation belongs to this checkpoint: only its files were restored.';
  const parent = r.parentOverlap.length
    ? [`The parent run had also changed ${r.parentOverlap.join(', ')}: its changes there are undone too.`]
    : [];
  return [files, conversation, ...parent];
}

/**
 * Rolls the workspace back to a subagent's checkpoint (`rollback.node`), after a second
 * click, then says what the answer reports: the files restored and what became of the
 * subagent's own conversation (its `conversation` field).
 */
export function NodeRollbackButton({ nodeId, checkpointId }: { nodeId: string; checkpointId: string }) {
  const { client } = useConsole();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [said, setSaid] = useState<string[] | null>(null);
  const focusAfter = useConfirmFocus(asking);
  const confirm = async () => {
    setBusy(true);
    const answer = await send(client, 'rollback.node', {
      nodeId: NodeId.parse(nodeId),
      checkpointId: CheckpointId.parse(checkpointId),
    });
    setBusy(false);
    setAsking(false);
    if (!answer) return;
    const result = NodeRolledBack.safeParse(answer);
    setSaid(result.success ? sentences(result.data) : ['Rolled back.']);
  };
  return (
    <div class="node-rollback">
      {asking ? (
        <ConfirmRollback
          label="Roll back to this subagent turn"
          question="Restore the files as this subagent turn left them?"
          busy={busy}
          keepRef={focusAfter.keep}
          onConfirm={() => void confirm()}
          onKeep={() => setAsking(false)}
        />
      ) : (
        <button ref={focusAfter.ask} type="button" class="small" onClick={() => setAsking(true)}>
          Roll back to this turn
        </button>
      )}
      {said && (
        <div class="note small-text" role="status">
          {said.map((s) => (
            <p>{s}</p>
          ))}
        </div>
      )}
    </div>
  );
}
