import { chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { BatonError, parseOrThrow } from '../../domain/errors.js';
import { ensureFileContent, ensurePrivateDir } from '../../persistence/private-file.js';
import type { CodexModelEndpoint } from '../codex/codex-home.js';
import {
  claudeBinaryPath,
  claudeEnv,
  claudeSessionDirs,
  ensureClaudeSessionDirs,
  type ClaudeEndpoint,
  type ClaudeSessionDirs,
} from '../claude/claude-environment.js';
import { diesWithParent } from '../dies-with-parent.js';
import { ensureAcpCodexHome } from './acp-codex-home.js';

/** The command line and environment of one agent process (its whole environment: nothing is merged in later). */
export interface AcpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** What an agent is started for: the thread, and the agent's own folder for it under the data dir. */
export interface AcpLaunchScope {
  threadId: string;
  /** `<dataDir>/acp/<agent>/<thread>/`, made 0700. */
  dir: string;
}

/** A named ACP agent: how to launch it for one thread. */
export interface AcpAgent {
  name: string;
  launch(scope: AcpLaunchScope): AcpLaunch;
  /** The next prompt after a cancelled one runs in a fresh process that resumes the session (see claudeAgentAcp). */
  restartAfterCancel?: boolean;
  /** Where the agent keeps a thread's Claude Code session transcripts: a native fork copies the source's there (acp-fork.ts). */
  transcriptDirs?(scope: AcpLaunchScope): ClaudeSessionDirs;
}

/** A configured agent (`BATON_ACP_AGENTS`, validated in config.ts). */
export interface AcpAgentConfig {
  command: string;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
}

/** The model endpoints the built-in agents are pointed at. */
export interface AcpEndpoints {
  claude: ClaudeEndpoint;
  codex: CodexModelEndpoint;
  /** The real Claude key for a configured endpoint; the dummy otherwise. */
  claudeApiKey?: string;
}

/** What an agent may inherit from Baton: how to find programs and print text, nothing else. */
const INHERITED = ['PATH', 'SHELL', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ'] as const;

function inherited(parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) if (parent[name] !== undefined) env[name] = parent[name];
  return env;
}

const here = createRequire(import.meta.url);

/** `@zed-industries/claude-agent-acp`'s entry point (its `bin`), run with this Node. */
export function claudeAgentAcpEntry(): string {
  return join(dirname(here.resolve('@zed-industries/claude-agent-acp/package.json')), 'dist', 'index.js');
}

/** `@zed-industries/codex-acp`'s native binary from its platform package (the JS shim would not forward signals). */
export function codexAcpBinary(platform = process.platform, arch = process.arch): string {
  const pkg = `@zed-industries/codex-acp-${platform}-${arch}`;
  try {
    const fromShim = createRequire(here.resolve('@zed-industries/codex-acp/package.json'));
    return join(dirname(fromShim.resolve(`${pkg}/package.json`)), 'bin', 'codex-acp');
  } catch {
    throw new BatonError('unsupported', `${pkg} is not installed (it comes with @zed-industries/codex-acp)`);
  }
}

/**
 * `claude-agent-acp` against Baton's Messages-API endpoint, in the thread's own HOME and
 * CLAUDE_CONFIG_DIR (its transcripts, which `session/resume` reads, stay there). It runs
 * Claude Code through its own SDK copy, pointed at Baton's pinned native binary
 * (`CLAUDE_CODE_EXECUTABLE`); as root it needs `IS_SANDBOX=1` to offer bypassPermissions.
 *
 * Its cancel race (0.23.1, measured): the first prompt after a cancelled one is answered
 * `end_turn` at once with no update (it takes the interrupted turn's late `result` for its
 * own), and its real turn stays queued in the agent until another prompt reads it, which
 * then streams it ahead of its own (re-sending the text runs it twice; a local command to
 * drain it adds its own output). So the prompt after a cancel goes to a fresh process that
 * resumes the session by id: nothing queued, no reply lost or given to another run.
 */
export function claudeAgentAcp(endpoints: AcpEndpoints, uid: number | null = process.getuid?.() ?? null): AcpAgent {
  return {
    name: 'claude-agent-acp',
    restartAfterCancel: true,
    transcriptDirs: (scope) => ensureClaudeSessionDirs(claudeSessionDirs(dirname(scope.dir), scope.threadId)),
    launch: (scope) => {
      const dirs = ensureClaudeSessionDirs(claudeSessionDirs(dirname(scope.dir), scope.threadId));
      writeAskSettings(dirs.configDir);
      return {
        command: process.execPath,
        args: [claudeAgentAcpEntry()],
        env: {
          ...claudeEnv({
            endpoint: endpoints.claude,
            dirs,
            ...(endpoints.claudeApiKey ? { apiKey: endpoints.claudeApiKey } : {}),
          }),
          ANTHROPIC_MODEL: endpoints.claude.model,
          CLAUDE_CODE_EXECUTABLE: claudeDyingWithAgent(scope.dir),
          ...(uid === 0 ? { IS_SANDBOX: '1' } : {}),
        },
      };
    },
  };
}

/**
 * The Claude binary claude-agent-acp runs, started so that it dies with the agent: a script
 * in the agent's folder that execs it with a parent-death signal. Without it, a SIGKILLed
 * Baton takes the agent down (its own parent-death signal) but not the Claude process under
 * it, whose open model request kept it alive (measured: still there 5 s later).
 */
function claudeDyingWithAgent(dir: string): string {
  const line = diesWithParent(claudeBinaryPath(), []);
  if (line.command === claudeBinaryPath()) return line.command;
  const quoted = [line.command, ...line.args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const path = join(dir, 'claude');
  ensureFileContent(path, `#!/bin/sh\nexec ${quoted} "$@"\n`);
  chmodSync(path, 0o700);
  return path;
}

/**
 * claude-agent-acp reads the user's settings (`CLAUDE_CONFIG_DIR/settings.json`): they make it
 * ask before every Bash command, as Baton's Claude provider does. Without them it runs what
 * Claude Code deems read-only (`echo hi`, measured with 0.23.1) without asking, so Baton's
 * approvals would not be the policy.
 */
function writeAskSettings(configDir: string): void {
  ensureFileContent(
    join(configDir, 'settings.json'),
    `${JSON.stringify({ permissions: { ask: ['Bash'] } }, null, 2)}\n`,
  );
}

/** `codex-acp` with a CODEX_HOME of the thread's, written like Baton's Codex home against its Responses-API endpoint. */
export function codexAcp(endpoints: AcpEndpoints): AcpAgent {
  return {
    name: 'codex-acp',
    launch: (scope) => {
      const home = ensureAcpCodexHome(join(scope.dir, 'codex-home'), endpoints.codex);
      return {
        command: codexAcpBinary(),
        args: [],
        env: { ...inherited(), HOME: scope.dir, CODEX_HOME: home, RUST_LOG: process.env.BATON_CODEX_LOG ?? 'error' },
      };
    },
  };
}

const AgentConfig = z.object({
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});

/** A configured agent: its command, in a HOME of the thread's, with its own env over what Baton lets through. */
export function configuredAgent(name: string, config: AcpAgentConfig): AcpAgent {
  const spec = parseOrThrow(AgentConfig, config, 'invalid_payload', `ACP agent ${name}`);
  return {
    name,
    launch: (scope) => ({
      command: spec.command,
      args: spec.args ?? [],
      env: { ...inherited(), HOME: scope.dir, ...spec.env },
    }),
  };
}

/** Every agent a thread may name: the two built-ins, with the configured ones over them (a name replaces a built-in). */
export function acpAgents(
  config: { acpAgents?: Record<string, AcpAgentConfig> | undefined },
  endpoints: AcpEndpoints,
): ReadonlyMap<string, AcpAgent> {
  const agents = new Map<string, AcpAgent>([
    ['claude-agent-acp', claudeAgentAcp(endpoints)],
    ['codex-acp', codexAcp(endpoints)],
  ]);
  for (const [name, spec] of Object.entries(config.acpAgents ?? {})) agents.set(name, configuredAgent(name, spec));
  return agents;
}

/** An agent's folder for one thread (made 0700). */
export function agentThreadDir(dataDir: string, agent: string, threadId: string): string {
  const dir = join(dataDir, 'acp', agent, threadId);
  ensurePrivateDir(join(dataDir, 'acp'));
  ensurePrivateDir(join(dataDir, 'acp', agent));
  return ensurePrivateDir(dir);
}
