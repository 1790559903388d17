import type { ProviderCapabilities } from '../../src/domain/capabilities.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import { addFilePatch, type ModelTurn, type SseEvent } from '../../src/providers/model/scripted-model-server.js';
import type { ScenarioProvider } from '../support/scenario-kit/channels.js';
import type { ModelStep } from '../support/scenario-kit/model-steps.js';
import type { ScenarioContext } from '../support/scenario-kit/scenario.js';
import { applicableScenarios } from '../support/scenario-kit/scenarios.js';

/** Codex as the scenario kit sees it: its id and its capability declaration. */
export const codexScenarioProvider: ScenarioProvider = { id: 'codex', capabilities: codexCapabilities };

/** A scenario in Codex's terms: the model script is the scripted Responses-API model's. */
export interface CodexScenario {
  name: string;
  model: ModelTurn[];
  /** MCP servers in the Codex home (stdio commands, by name). */
  mcpServers?: Record<string, { command: string; args: string[] }>;
  adjustCapabilities?: (declared: ProviderCapabilities) => ProviderCapabilities;
  drive(ctx: ScenarioContext): Promise<void>;
}

/** A neutral model step as the turns Codex's scripted model plays. */
function codexTurns(step: ModelStep): ModelTurn[] {
  switch (step.kind) {
    case 'command':
      return [
        {
          kind: 'exec',
          command: step.command,
          ...(step.needsApproval ? { escalated: true } : {}),
          callId: step.callId,
        },
      ];
    case 'add_file':
      return [{ kind: 'patch', patch: addFilePatch(step.path, step.content), callId: step.callId }];
    case 'todo':
      return [{ kind: 'plan', steps: step.steps, callId: step.callId }];
    case 'proposed_plan':
      // Codex's plan mode: the plan in a <proposed_plan> block of the reply.
      return [{ kind: 'text', text: `${step.reply}<proposed_plan>\n${step.plan}</proposed_plan>\n` }];
    case 'mcp_call':
      // Codex defers MCP tools: the model finds the tool with tool_search before it calls it.
      return [
        { kind: 'tool_search', query: step.tool },
        { kind: 'call', namespace: `mcp__${step.server}`, name: step.tool, args: step.args, callId: step.callId },
      ];
    case 'text':
    case 'questions':
    case 'web_search':
    case 'error':
    case 'hang':
      return [step];
    case 'subagent':
      // Codex's multi-agent tools (v2, in the `collaboration` namespace): a spawn and a wait on
      // any agent in one response, so the parent asks the model again only once the child has
      // ended; meanwhile the child's own requests play its steps.
      return [
        {
          kind: 'events',
          events: [
            { type: 'response.created', response: { id: `resp_${step.callId}` } },
            collaborationCall(step.callId, 'spawn_agent', {
              task_name: taskName(step.description),
              message: step.prompt,
              fork_turns: 'none',
            }),
            collaborationCall(`${step.callId}_wait`, 'wait_agent', { timeout_ms: 3_600_000 }),
            { type: 'response.completed', response: { id: `resp_${step.callId}`, usage: noUsage } },
          ],
        },
        ...codexModel(step.steps),
      ];
  }
}

const noUsage = {
  input_tokens: 0,
  input_tokens_details: null,
  output_tokens: 0,
  output_tokens_details: null,
  total_tokens: 0,
};

/** A subagent's task name: lowercase letters, digits and underscores. */
const taskName = (description: string) =>
  description
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

const collaborationCall = (callId: string, name: string, args: Record<string, unknown>): SseEvent => ({
  type: 'response.output_item.done',
  item: { type: 'function_call', call_id: callId, namespace: 'collaboration', name, arguments: JSON.stringify(args) },
});

export const codexModel = (steps: readonly ModelStep[]): ModelTurn[] => steps.flatMap(codexTurns);

/** The shared scenarios Codex runs (every one, by its declaration), in Codex's terms. */
export const codexScenarios: CodexScenario[] = applicableScenarios(codexScenarioProvider).map((s) => ({
  name: s.name,
  model: codexModel(s.model),
  ...(s.mcpServers ? { mcpServers: s.mcpServers } : {}),
  ...(s.adjustCapabilities ? { adjustCapabilities: s.adjustCapabilities } : {}),
  drive: s.drive,
}));
