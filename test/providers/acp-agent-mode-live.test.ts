import { describe, expect, it } from 'vitest';
import type { MessagesRequest } from '../../src/providers/model/scripted-messages-server.js';
import { AcpRecording } from '../../src/providers/acp/acp-recording.js';
import { withSentIdPlaceholders } from '../../src/providers/acp/acp-transcript-ids.js';
import { writeTranscript } from '../../src/providers/transport/transcript.js';
import { acpAgentCapabilities } from './acp-scenario-channels.js';
import { planFileOf } from './claude-model.js';
import { agentModeTranscript } from './acp-agent-mode-transcript.js';
import { useLiveAcp } from '../support/live-acp.js';
import type { Harness } from '../support/runtime.js';

/**
 * The mode an ACP agent says it runs in, as thread state, live on claude-agent-acp against the
 * scripted Messages-API model. A default thread's turn: the model enters plan mode itself
 * (EnterPlanMode), writes its plan and calls ExitPlanMode; outside a plan thread that ask is an
 * approval (in a plan thread it is a proposed plan: acp-plan-mode-live), Baton allows it
 * (`accept` -> the agent's `allow_once` option, `default`), and the agent leaves plan mode
 * itself (`current_mode_update`). The thread shows each mode the agent reports; its settings
 * stay the user's, so the next turn is in the thread's mode (acceptEdits) again.
 * `BATON_RECORD_AGENT_MODE=1` also writes the agent process's frames to the transcript the unit
 * test reads (acp-agent-mode-transcript.ts).
 */
const acp = useLiveAcp();
const record = process.env.BATON_RECORD_AGENT_MODE === '1';

/** claude-agent-acp writes through its ACP-backed Write tool where it offers it. */
const writeTool = (request: MessagesRequest): string =>
  (request.body.tools ?? []).map((t) => t.name).find((n) => n === 'mcp__acp__Write') ?? 'Write';

const thread = (h: Harness, threadId: string) => h.store.projections.get('threads', threadId)!;
const modeEvents = (h: Harness, threadId: string) =>
  h.store.events
    .readThreadAfter(threadId, 0)
    .flatMap((e) => (e.type === 'thread.agent-mode-changed' ? [e.payload] : []));

describe('the ACP agent mode, live', () => {
  it(
    'claude-agent-acp enters plan mode and leaves it itself after an allowed ExitPlanMode: the thread shows it, its settings stay',
    { timeout: 120_000 },
    async () => {
      const recordings: AcpRecording[] = [];
      let vars: Record<string, string> = {};
      const { h, cwd, dataDir, messages } = await acp.setup({
        provider: record
          ? {
              channelFor: (_threadId, _sessionId, spawn) => {
                const recording = new AcpRecording(spawn(), vars);
                recordings.push(recording);
                return recording.channel;
              },
            }
          : {},
      });
      vars = { cwd, dataDir };
      messages.enqueue(
        { kind: 'tool_use', name: 'EnterPlanMode', id: 'toolu_enterplan', input: {} },
        (request) => ({
          kind: 'tool_use',
          name: writeTool(request),
          id: 'toolu_planfile',
          input: { file_path: planFileOf(request), content: '# Plan\n\n1. Fix the parser.\n' },
        }),
        { kind: 'tool_use', name: 'ExitPlanMode', id: 'toolu_exitplan', input: {} },
        { kind: 'text', text: 'Planned; leaving plan mode.' },
        { kind: 'text', text: 'Planning again.' },
      );
      const threadId = await h.thread({
        threadId: 'thr_acp_agent_mode',
        cwd,
        provider: 'acp',
        acpAgent: 'claude-agent-acp',
      });
      const one = await h.send(threadId, 'plan the fix');
      // The agent entered plan mode itself; its ExitPlanMode asks to leave it.
      await h.until(() =>
        h.store.projections
          .list('requests', threadId)
          .some((r) => r.status === 'pending' && r.details.toolKind === 'switch_mode'),
      );
      expect(thread(h, threadId).agentMode).toEqual({ id: 'plan', name: 'Plan Mode' });
      const ask = h.store.projections.list('requests', threadId).find((r) => r.status === 'pending')!;
      expect(ask.details.options).toContainEqual({ optionId: 'default', name: expect.any(String), kind: 'allow_once' });
      await h.command({ type: 'runtime-request.respond', requestId: ask.id, decision: 'accept' });
      await h.until(() => h.ended(one));
      expect(h.store.projections.get('runs', one)?.status).toBe('completed');

      // The agent left plan mode itself, within the run; the thread's own settings did not move.
      expect(thread(h, threadId).agentMode).toEqual({ id: 'default', name: 'Default' });
      expect(thread(h, threadId).interactionMode).toBe('default');
      expect(modeEvents(h, threadId)).toEqual([
        { threadId, runId: null, mode: { id: 'default', name: 'Default' } },
        { threadId, runId: null, mode: { id: 'acceptEdits', name: 'Accept Edits' } },
        { threadId, runId: one, mode: { id: 'plan', name: 'Plan Mode' } },
        { threadId, runId: one, mode: { id: 'default', name: 'Default' } },
      ]);
      expect(
        h.published.filter((e) => e.type === 'thread.settings-updated'),
        'no settings change',
      ).toEqual([]);

      // The next turn sets the thread's mode again: acceptEdits (workspace_write).
      const two = await h.send(threadId, 'and again');
      await h.until(() => h.ended(two));
      expect(h.store.projections.get('runs', two)?.status).toBe('completed');
      expect(thread(h, threadId).agentMode).toEqual({ id: 'acceptEdits', name: 'Accept Edits' });
      expect(modeEvents(h, threadId)).toHaveLength(5);

      if (record) {
        const [entries] = withSentIdPlaceholders(recordings.map((r) => r.recorded()));
        writeTranscript(agentModeTranscript, {
          header: {
            kind: 'header',
            provider: 'acp',
            protocol: 'acp-ndjson',
            version: acpAgentCapabilities('claude-agent-acp').version,
            scenario: 'agent_mode_exit_plan',
            metadata: {
              recordedWith: 'BATON_RECORD_AGENT_MODE=1 npx vitest run test/providers/acp-agent-mode-live.test.ts',
              agent: 'claude-agent-acp',
              thread: threadId,
              vars: Object.keys(vars),
            },
          },
          entries: entries!,
        });
      }
    },
  );
});
