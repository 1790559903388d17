import type { PermissionMode, Query } from '@anthropic-ai/claude-agent-sdk';
import { BatonError } from '../../domain/errors.js';
import type { RuntimeMode } from '../../domain/statuses.js';
import { turnSettingsOf, type TurnSettings } from '../effect-payloads.js';

/**
 * Baton's thread settings as the Claude agent's permission mode, permission rules and model.
 * Measured against the real agent (0.3.332) on this machine:
 * - `acceptEdits` writes files inside the cwd without asking and asks (through `canUseTool`)
 *   for one outside it, but it also runs a file-writing Bash command (`echo hi > f`) in the
 *   cwd without asking: an `ask: ['Bash']` rule keeps every command an approval.
 * - a `deny` rule on Write refuses it ("Permission to use Write has been denied"); nothing is
 *   written and nothing asks.
 * - `bypassPermissions` runs everything without asking; it needs the agent started with
 *   `allowDangerouslySkipPermissions` (and, as root, `IS_SANDBOX=1`: see `claudeOptions`).
 * - `setModel` makes the agent send a one-token probe (`max_tokens: 1`, "Hi") with the new
 *   model before the turn's request, which names it too.
 */

/** The tools that write files; a read-only thread refuses them outright (no approval can lift it). */
export const FILE_WRITING_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;

/** The permission rules of one runtime mode, as the flag-settings layer takes them. */
export interface ClaudePermissionRules {
  deny: string[];
  ask: string[];
}

/** What one turn runs under. */
export interface ClaudeTurnPolicy {
  permissionMode: PermissionMode;
  rules: ClaudePermissionRules;
  model: string;
}

const rulesFor = (mode: RuntimeMode): ClaudePermissionRules => {
  switch (mode) {
    // Bash asks (the default mode asks for it): the user's consent is the escalation.
    case 'read_only':
      return { deny: [...FILE_WRITING_TOOLS], ask: [] };
    case 'workspace_write':
      return { deny: [], ask: ['Bash'] };
    case 'full_access':
      return { deny: [], ask: [] };
  }
};

const modeFor = (settings: TurnSettings): PermissionMode => {
  if (settings.interactionMode === 'plan') return 'plan';
  switch (settings.runtimeMode) {
    case 'read_only':
      return 'default';
    case 'workspace_write':
      return 'acceptEdits';
    case 'full_access':
      return 'bypassPermissions';
  }
};

/** The agent's policy for a turn under these settings (pure). `defaultModel` is the endpoint's. */
export function claudeTurnPolicy(settings: TurnSettings, defaultModel: string): ClaudeTurnPolicy {
  return {
    permissionMode: modeFor(settings),
    rules: rulesFor(settings.runtimeMode),
    model: settings.model ?? defaultModel,
  };
}

/** What each live query last got from Baton (a query starts with the endpoint's model and no rules). */
const applied = new WeakMap<Query, { rules: string; model: string }>();

/** A control request to the agent; one that fails or never answers is a typed provider error. */
async function control<T>(what: string, request: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BatonError('timeout', `the Claude agent did not answer ${what} within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([request, timeout]);
  } catch (error) {
    if (error instanceof BatonError) throw error;
    throw new BatonError(
      'provider_error',
      `the Claude agent refused ${what}: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Applies a turn start's settings to the live query before its user message is handed over.
 * The permission mode is sent on every turn (the agent may leave a mode itself, as plan mode
 * does when a plan is accepted); the rules and the model only when they changed for this query.
 * The first call waits for the agent to start, hence the generous default timeout.
 */
export async function applyTurnSettings(
  query: Query,
  payload: Record<string, unknown>,
  defaultModel: string,
  timeoutMs = 60_000,
): Promise<ClaudeTurnPolicy> {
  const policy = claudeTurnPolicy(turnSettingsOf(payload), defaultModel);
  const last = applied.get(query) ?? { rules: JSON.stringify({ deny: [], ask: [] }), model: defaultModel };
  const rules = JSON.stringify(policy.rules);
  if (rules !== last.rules) {
    // The whole `permissions` object is replaced (top-level keys merge, nested ones do not).
    await control(
      'the permission rules',
      query.applyFlagSettings({ permissions: { deny: policy.rules.deny, ask: policy.rules.ask } }),
      timeoutMs,
    );
    last.rules = rules;
  }
  const now = await control(
    `permission mode ${policy.permissionMode}`,
    query.setPermissionMode(policy.permissionMode),
    timeoutMs,
  );
  if (now?.mode !== undefined && now.mode !== policy.permissionMode)
    throw new BatonError(
      'provider_error',
      `the Claude agent runs in permission mode ${now.mode}, not the ${policy.permissionMode} this turn needs`,
    );
  if (policy.model !== last.model) {
    await control(`model ${policy.model}`, query.setModel(policy.model), timeoutMs);
    last.model = policy.model;
  }
  applied.set(query, last);
  return policy;
}
