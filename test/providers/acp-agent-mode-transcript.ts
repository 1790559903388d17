import { fileURLToPath } from 'node:url';

/**
 * claude-agent-acp leaving plan mode itself (an allowed ExitPlanMode), recorded off the real
 * agent by `BATON_RECORD_AGENT_MODE=1 npx vitest run test/providers/acp-agent-mode-live.test.ts`.
 * Outside the agents' scenario folders: it is no shared scenario's.
 */
export const agentModeTranscript = fileURLToPath(
  new URL('../fixtures/transcripts/acp/agent-mode/claude-agent-acp.exit_plan_mode.ndjson', import.meta.url),
);
