import { describe, expect, it } from 'vitest';
import { claudeCapabilities } from '../../src/providers/claude/claude-capabilities.js';
import { codexCapabilities } from '../../src/providers/codex/codex-capabilities.js';
import type { Transcript } from '../../src/providers/transport/transcript.js';
import {
  crossAgents,
  crossReplayChannel,
  readCrossTranscripts,
  recordCrossCommand,
} from '../support/scenario-kit/cross-providers.js';
import { providersOf, type CrossProvider } from '../support/scenario-kit/cross-scenario.js';
import { describeCrossScenarios } from '../support/scenario-kit/cross-suite.js';
import { crossScenarios } from '../support/scenario-kit/scenarios/cross.js';
import { acpAgentCapabilities } from './acp-scenario-channels.js';

/**
 * The cross-provider scenarios replayed: each provider's recorded agent processes (written by
 * `npm run record:cross`, per provider, in
 * test/fixtures/transcripts/cross/<scenario>/<provider>/) stand in for its agent, all in one
 * Baton; the runtime, store, adapters and normalizers are the real ones, and every frame
 * Baton sends each provider is checked against its recording.
 */
const { byProvider, folders } = readCrossTranscripts();

/** What each provider's transcripts say of it in their headers, as its own recorder writes them. */
const recordedBy: Record<CrossProvider, (t: Transcript) => string> = {
  codex: (t) => `${t.header.provider} codex-app-server/${t.header.version}`,
  claude: (t) => `${t.header.provider} claude-agent-sdk/${t.header.version}`,
  'codex-acp': (t) => `${t.header.provider} ${String(t.header.metadata.agent)} ${t.header.version}`,
  'claude-agent-acp': (t) => `${t.header.provider} ${String(t.header.metadata.agent)} ${t.header.version}`,
};
const pinned: Record<CrossProvider, string> = {
  codex: `codex ${codexCapabilities.version}`,
  claude: `claude ${claudeCapabilities.version}`,
  'codex-acp': `acp codex-acp ${acpAgentCapabilities('codex-acp').version}`,
  'claude-agent-acp': `acp claude-agent-acp ${acpAgentCapabilities('claude-agent-acp').version}`,
};

describe('the cross transcripts', () => {
  it('every cross scenario has them, for each provider it uses, and there are no others', () => {
    const expected = crossScenarios.flatMap((s) => providersOf(s).map((p) => `${s.name}/${p}`)).sort();
    const recorded = folders.filter((f) => f.files.length > 0).map((f) => `${f.scenario}/${f.provider}`);
    const missing = expected.filter((e) => !recorded.includes(e));
    expect(missing, `no transcripts for ${missing.join(', ')}: run ${recordCrossCommand('NAME')}`).toEqual([]);
    expect(folders.map((f) => `${f.scenario}/${f.provider}`).sort()).toEqual(expected);
  });

  it("each is of its folder's scenario, recorded from the pinned agent by the cross recorder", () => {
    for (const [provider, transcripts] of Object.entries(byProvider) as [CrossProvider, Transcript[]][])
      for (const t of transcripts) {
        expect(recordedBy[provider](t)).toBe(pinned[provider]);
        expect(t.header.metadata.recordedWith).toBe(recordCrossCommand(t.header.scenario));
      }
    for (const f of folders)
      for (const file of f.files) expect(file).toMatch(new RegExp(`^${f.scenario}(\\.\\d+)?\\.ndjson$`));
  });
});

describeCrossScenarios('cross-provider scenarios, replayed', crossReplayChannel(byProvider), crossScenarios, {
  timeoutMs: 30_000,
  // A replay starts no agent process at all.
  afterGone: () => expect(crossAgents()).toEqual([]),
});
