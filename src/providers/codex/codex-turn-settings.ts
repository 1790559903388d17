import type { RuntimeMode } from '../../domain/statuses.js';
import type { TurnSettings } from '../effect-payloads.js';
import type { CollaborationMode } from '../../../vendor/codex-protocol/CollaborationMode.js';
import type { AskForApproval } from '../../../vendor/codex-protocol/v2/AskForApproval.js';
import type { SandboxPolicy } from '../../../vendor/codex-protocol/v2/SandboxPolicy.js';

/** What Baton sends on every `turn/start` so each turn runs under the thread's settings. */
export interface CodexTurnOverrides {
  model: string;
  approvalPolicy: AskForApproval;
  sandboxPolicy: SandboxPolicy;
  collaborationMode: CollaborationMode;
}

/**
 * Maps Baton's settings to Codex's per-turn overrides. Codex keeps an override for the
 * turns after it (measured: a turn that sends nothing keeps the last sandbox and model),
 * so every field is sent every time, the defaults included: a thread switched back to
 * `read_only` or `default` never inherits the previous turn's looser setting.
 * `workspace_write` keeps Codex's own scratch space (/tmp, $TMPDIR) writable besides cwd.
 */
export function codexTurnOverrides(settings: TurnSettings, cwd: string, defaultModel: string): CodexTurnOverrides {
  const model = settings.model ?? defaultModel;
  return {
    model,
    approvalPolicy: settings.runtimeMode === 'full_access' ? 'never' : 'on-request',
    sandboxPolicy: sandboxFor(settings.runtimeMode, cwd),
    collaborationMode: {
      mode: settings.interactionMode,
      settings: { model, reasoning_effort: null, developer_instructions: null },
    },
  };
}

function sandboxFor(mode: RuntimeMode, cwd: string): SandboxPolicy {
  switch (mode) {
    case 'read_only':
      return { type: 'readOnly', networkAccess: false };
    case 'workspace_write':
      return {
        type: 'workspaceWrite',
        writableRoots: [cwd],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      };
    case 'full_access':
      return { type: 'dangerFullAccess' };
  }
}
