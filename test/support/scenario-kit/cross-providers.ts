import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScriptedMessagesServer } from '../../../src/providers/model/scripted-messages-server.js';
import type { RecordedRequest, ScriptedModelServer } from '../../../src/providers/model/scripted-model-server.js';
import { readTranscript, type Transcript } from '../../../src/providers/transport/transcript.js';
import { acpLiveChannel, type AcpModel } from '../../providers/acp-scenario-channels.js';
import { AcpReplayChannel, acpRecordChannel } from '../../providers/acp-replay-channels.js';
import {
  ClaudeReplayChannel,
  claudeLiveChannel,
  claudeRecordChannel,
} from '../../providers/claude-scenario-channels.js';
import { CodexReplayChannel, codexLiveChannel, codexRecordChannel } from '../../providers/codex-scenario-channels.js';
import { descendants } from '../live-acp.js';
import { userTexts } from '../messages-request.js';
import type { ScenarioChannel } from './channels.js';
import { crossChannel, type CrossChannel, type CrossPart, type CrossParts } from './cross-channel.js';
import { crossProviders, providersOf, type CrossProvider, type ModelSide } from './cross-scenario.js';

/**
 * The multi-provider channels of the real providers: each provider wired in by its own
 * channel (test/providers/*-channels.ts), live against its scripted model, recording, or
 * replayed from the transcripts in test/fixtures/transcripts/cross/<scenario>/<provider>/.
 */

/** The scripted models of a live cross run, one each (two agents never share a model's queue). */
export interface CrossModels {
  codex?: ScriptedModelServer;
  claude?: ScriptedMessagesServer;
  'codex-acp'?: ScriptedModelServer;
  'claude-agent-acp'?: ScriptedMessagesServer;
}

/** The agents (and their own processes) still alive under this process. */
export const crossAgents = (): string[] =>
  descendants()
    .filter((p) => /codex app-server|codex-acp|claude-agent-acp|claude-agent-sdk-linux-x64\/claude/.test(p.args))
    .map((p) => `${p.pid} ${p.args.slice(0, 160)}`);

/** A Responses-API request's user texts (Codex, codex-acp), each input item's texts joined. */
const inputTexts = (request: RecordedRequest): string[] =>
  (Array.isArray(request.body.input) ? (request.body.input as Record<string, unknown>[]) : [])
    .filter((i) => i.role === 'user')
    .map((i) => (Array.isArray(i.content) ? (i.content as { text?: string }[]) : []).map((c) => c.text ?? '').join(''));

const nth = <T>(list: readonly T[], at: number, what: string): T => {
  const found = list.at(at);
  if (!found) throw new Error(`${what} has no request ${at} (${list.length} in all)`);
  return found;
};

/** What the Responses-API model (Codex's, codex-acp's) was asked. */
const responsesSide = (server: ScriptedModelServer): ModelSide => ({
  userTexts: (at) => inputTexts(nth(server.requests, at, 'the Responses-API model')),
  cacheKey: (at) => {
    const key = nth(server.requests, at, 'the Responses-API model').body.prompt_cache_key;
    return typeof key === 'string' ? key : undefined;
  },
});

/** What the Messages-API model (Claude's, claude-agent-acp's) was asked (its agent turns, not side requests). */
const messagesSide = (server: ScriptedMessagesServer): ModelSide => ({
  userTexts: (at) => userTexts(nth(server.messageRequests, at, 'the Messages-API model')),
  cacheKey: () => undefined,
});

/** How a live or recording run makes each provider's own channel, given its scripted model. */
interface PartMakers {
  codex(model: ScriptedModelServer): ScenarioChannel;
  claude(model: ScriptedMessagesServer): ScenarioChannel;
  acp(model: AcpModel): ScenarioChannel;
}

/** The parts of the providers a scenario uses, each with its model (a provider with none is left out). */
function modelParts(models: CrossModels, used: readonly CrossProvider[], make: PartMakers): CrossParts {
  const parts: CrossParts = {};
  const codexAcp = models['codex-acp'];
  const claudeAcp = models['claude-agent-acp'];
  for (const p of used) {
    if (p === 'codex' && models.codex)
      parts.codex = { channel: make.codex(models.codex), model: responsesSide(models.codex) };
    if (p === 'claude' && models.claude)
      parts.claude = { channel: make.claude(models.claude), model: messagesSide(models.claude) };
    if (p === 'codex-acp' && codexAcp)
      parts[p] = { channel: make.acp({ agent: p, server: codexAcp }), model: responsesSide(codexAcp) };
    if (p === 'claude-agent-acp' && claudeAcp)
      parts[p] = { channel: make.acp({ agent: p, server: claudeAcp }), model: messagesSide(claudeAcp) };
  }
  return parts;
}

/** Each provider given a model, live: its own live channel, and its model's requests to read. */
export const crossLiveChannel = (models: CrossModels): CrossChannel =>
  crossChannel('live', (scenario) =>
    modelParts(models, providersOf(scenario), {
      codex: codexLiveChannel,
      claude: claudeLiveChannel,
      acp: acpLiveChannel,
    }),
  );

/** Where the cross scenarios' transcripts live: `<scenario>/<provider>/<scenario>[.N].ndjson`. */
export const crossTranscriptDir = fileURLToPath(new URL('../../fixtures/transcripts/cross/', import.meta.url));

/** The command that records a cross scenario (the transcripts' headers name it). */
export const recordCrossCommand = (scenario: string): string => `npm run record:cross -- --scenario ${scenario}`;

/**
 * Live, each provider's agent processes recorded by its own record channel: when the scenario
 * has passed, its transcripts are written to `outDirOf(scenario, provider)`.
 */
export function crossRecordChannel(options: {
  models: CrossModels;
  versions: { codex: string; claude: string };
  outDirOf(scenario: string, provider: CrossProvider): string;
}): CrossChannel {
  const { models, versions, outDirOf } = options;
  return crossChannel('record', (scenario) => {
    const recordedWith = recordCrossCommand(scenario.name);
    // Each provider writes its transcripts to a folder of its own.
    const outDir = (p: CrossProvider) => outDirOf(scenario.name, p);
    return modelParts(models, providersOf(scenario), {
      codex: (model) => codexRecordChannel({ model, outDir: outDir('codex'), version: versions.codex, recordedWith }),
      claude: (model) =>
        claudeRecordChannel({ model, outDir: outDir('claude'), version: versions.claude, recordedWith }),
      acp: (model) => acpRecordChannel({ model, outDir: outDir(model.agent), recordedWith }),
    });
  });
}

/** The recorded cross transcripts, by provider (every scenario's), and the providers each scenario recorded. */
export function readCrossTranscripts(dir = crossTranscriptDir): {
  byProvider: Record<CrossProvider, Transcript[]>;
  folders: { scenario: string; provider: string; files: string[] }[];
} {
  const byProvider = Object.fromEntries(crossProviders.map((p) => [p, [] as Transcript[]])) as Record<
    CrossProvider,
    Transcript[]
  >;
  const folders: { scenario: string; provider: string; files: string[] }[] = [];
  const subfolders = (d: string) =>
    existsSync(d) ? readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory()) : [];
  for (const scenario of subfolders(dir))
    for (const provider of subfolders(join(dir, scenario.name))) {
      const at = join(dir, scenario.name, provider.name);
      const files = readdirSync(at).filter((f) => f.endsWith('.ndjson'));
      folders.push({ scenario: scenario.name, provider: provider.name, files });
      const known = crossProviders.find((p) => p === provider.name);
      if (known) byProvider[known].push(...files.map((f) => readTranscript(join(at, f))));
    }
  return { byProvider, folders };
}

/**
 * Each provider's recorded processes stand in for its agent, replayed by its own replay
 * channel; the runtime, store, adapters and normalizers are the real ones.
 */
export function crossReplayChannel(byProvider: Record<CrossProvider, Transcript[]>): CrossChannel {
  const parts: Record<CrossProvider, CrossPart> = {
    codex: { channel: new CodexReplayChannel(byProvider.codex) },
    claude: { channel: new ClaudeReplayChannel(byProvider.claude) },
    'codex-acp': { channel: new AcpReplayChannel('codex-acp', byProvider['codex-acp']) },
    'claude-agent-acp': { channel: new AcpReplayChannel('claude-agent-acp', byProvider['claude-agent-acp']) },
  };
  return crossChannel('replay', () => parts);
}
