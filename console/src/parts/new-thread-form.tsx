import { useState } from 'preact/hooks';
import { InteractionMode, ProviderKind, RuntimeMode } from '../../../src/domain/statuses.js';
import { EnumSelect } from './enum-select.js';
import { send } from '../commands.js';
import { useConsole } from '../live/use-stream.js';
import { go, threadPath } from '../router.js';
import { words } from '../format.js';

/** Creates a thread on a workspace (an absolute path Baton can reach) with its provider and modes. */
export function NewThreadForm() {
  const { client } = useConsole();
  const [cwd, setCwd] = useState('');
  const [title, setTitle] = useState('');
  const [provider, setProvider] = useState<ProviderKind>('codex');
  const [acpAgent, setAcpAgent] = useState('codex-acp');
  const [runtimeMode, setRuntimeMode] = useState<RuntimeMode>('workspace_write');
  const [interactionMode, setInteractionMode] = useState<InteractionMode>('default');
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const result = await send(client, 'thread.create', {
      cwd: cwd.trim(),
      ...(title.trim() ? { title: title.trim() } : {}),
      provider,
      ...(provider === 'acp' ? { acpAgent: acpAgent.trim() } : {}),
      runtimeMode,
      interactionMode,
    });
    setBusy(false);
    if (result && typeof result.threadId === 'string') go(threadPath(result.threadId));
  };

  return (
    <form class="card new-thread" onSubmit={submit} aria-label="New thread">
      <h2>New thread</h2>
      <label>
        Workspace (absolute path)
        <input
          name="cwd"
          required
          value={cwd}
          placeholder="/home/me/project"
          onInput={(e) => setCwd(e.currentTarget.value)}
        />
      </label>
      <label>
        Title
        <input name="title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <div class="row wrap">
        <EnumSelect
          label="Provider"
          name="provider"
          value={provider}
          options={ProviderKind.options}
          onChange={setProvider}
        />
        {provider === 'acp' && (
          <label>
            ACP agent
            <input name="acpAgent" value={acpAgent} onInput={(e) => setAcpAgent(e.currentTarget.value)} />
          </label>
        )}
        <EnumSelect
          label="Runtime mode"
          name="runtimeMode"
          value={runtimeMode}
          options={RuntimeMode.options}
          onChange={setRuntimeMode}
          format={words}
        />
        <EnumSelect
          label="Interaction"
          name="interactionMode"
          value={interactionMode}
          options={InteractionMode.options}
          onChange={setInteractionMode}
        />
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Create thread
      </button>
    </form>
  );
}
