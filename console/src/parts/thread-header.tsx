import { useEffect, useState } from 'preact/hooks';
import { ThreadId } from '../../../src/domain/ids.js';
import type { ContextTransfer } from '../../../src/domain/entities.js';
import type { ThreadShell } from '../../../src/domain/projections.js';
import { ProviderKind, RuntimeMode } from '../../../src/domain/statuses.js';
import { EnumSelect } from './enum-select.js';
import { send } from '../commands.js';
import { threadState, threadTitle, words } from '../format.js';
import { useConsole } from '../live/use-stream.js';
import { threadPath } from '../router.js';

/** The thread's name and state, its settings (provider switch, runtime mode), merge-back for a fork, archive. */
export function ThreadHeader({ thread, transfers }: { thread: ThreadShell; transfers: ContextTransfer[] }) {
  const { client } = useConsole();
  const threadId = ThreadId.parse(thread.id);
  const [provider, setProvider] = useState<ProviderKind>(thread.provider);
  const [acpAgent, setAcpAgent] = useState(thread.acpAgent ?? 'codex-acp');
  const [withFiles, setWithFiles] = useState(false);
  // A switch made (here or by another client) is the thread's provider now.
  useEffect(() => setProvider(thread.provider), [thread.provider]);
  const parent = thread.lineage.parentThreadId;
  const forkOf = thread.lineage.relationshipToParent === 'fork' ? parent : null;
  const idle = thread.activeRunId === null && thread.queuedRunCount === 0;
  const switching = transfers.filter((t) => t.kind === 'provider_handoff' && t.status === 'pending');
  const changed = provider !== thread.provider || (provider === 'acp' && acpAgent !== thread.acpAgent);

  return (
    <header class="thread-header card">
      <div class="row spread wrap">
        <h2>{threadTitle(thread)}</h2>
        <span class="row wrap meta">
          <span class="chip thread-state">{threadState(thread)}</span>
          {thread.agentMode && <span class="chip">mode: {thread.agentMode.name ?? thread.agentMode.id}</span>}
        </span>
      </div>
      <div class="muted small-text cwd">
        {thread.workspace.cwd}
        {parent && (
          <>
            {' · '}
            {thread.lineage.relationshipToParent} of <a href={`#${threadPath(parent)}`}>{parent}</a>
          </>
        )}
      </div>
      <div class="row wrap settings">
        <EnumSelect
          inline
          label="Provider"
          name="provider"
          value={provider}
          options={ProviderKind.options}
          onChange={setProvider}
        />
        {provider === 'acp' && (
          <label class="inline">
            Agent
            <input value={acpAgent} size={14} onInput={(e) => setAcpAgent(e.currentTarget.value)} />
          </label>
        )}
        {changed && (
          <button
            type="button"
            class="small"
            onClick={() =>
              void send(client, 'thread.settings.update', {
                threadId,
                provider,
                ...(provider === 'acp' ? { acpAgent } : {}),
              })
            }
          >
            Switch to {provider}
          </button>
        )}
        <EnumSelect
          inline
          label="Runtime"
          name="runtimeMode"
          value={thread.runtimeMode}
          options={RuntimeMode.options}
          onChange={(runtimeMode) => void send(client, 'thread.settings.update', { threadId, runtimeMode })}
          format={words}
        />
        {forkOf && (
          <span class="row">
            <label class="inline">
              <input type="checkbox" checked={withFiles} onChange={(e) => setWithFiles(e.currentTarget.checked)} />
              with files
            </label>
            <button
              type="button"
              class="small"
              onClick={() =>
                void send(client, 'thread.merge_back', {
                  threadId: ThreadId.parse(forkOf),
                  fromThreadId: threadId,
                  ...(withFiles ? { files: true } : {}),
                })
              }
            >
              Merge back into parent
            </button>
          </span>
        )}
        {thread.status === 'active' && (
          <button
            type="button"
            class="small"
            disabled={!idle}
            onClick={() => void send(client, 'thread.archive', { threadId })}
          >
            Archive
          </button>
        )}
      </div>
      {switching.map((t) => (
        <p class="notice-inline">
          Switching from {t.fromProvider} to {t.toProvider}: the next run starts there with a handoff of this thread's
          runs.
        </p>
      ))}
    </header>
  );
}
