import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { codexBinaryPath } from '../../src/providers/codex/codex-binary.js';
import { codexConfigToml, ensureCodexHome } from '../../src/providers/codex/codex-home.js';
import { CodexProvider } from '../../src/providers/codex/codex-provider.js';
import { useScriptedModel } from '../support/model.js';
import { useRuntime, type Harness } from '../support/runtime.js';
import { TempFolders } from '../support/temp.js';

const model = useScriptedModel();
const folders = new TempFolders();
const providers: CodexProvider[] = [];
afterEach(() => providers.splice(0).forEach((p) => p.stopAll('SIGKILL')));
afterAll(() => folders.removeAll());

/**
 * A reader in another process (as a starting Codex is) polls a file while this process
 * makes the home again and again; it reports how many reads were not a whole config.
 */
function watchReads(path: string, whole: string[]): { stop: () => Promise<{ reads: number; torn: number }> } {
  const script = `
    const fs = require('node:fs');
    const whole = new Set(JSON.parse(process.argv[1]));
    let reads = 0, torn = 0, stop = false;
    process.stdin.on('data', () => (stop = true));
    const loop = () => {
      for (let i = 0; i < 200; i++) {
        let text = null;
        try { text = fs.readFileSync(${JSON.stringify(path)}, 'utf8'); } catch {}
        reads++;
        if (text === null || !whole.has(text)) torn++;
      }
      if (stop) { process.stdout.write(JSON.stringify({ reads, torn })); process.exit(0); }
      setImmediate(loop);
    };
    process.stdout.write('ready\\n');
    loop();`;
  const child = spawn(process.execPath, ['-e', script, JSON.stringify(whole)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  return {
    stop: () =>
      new Promise((resolve) => {
        child.on('close', () =>
          resolve(JSON.parse(out.slice(out.indexOf('\n') + 1)) as { reads: number; torn: number }),
        );
        child.stdin.write('stop');
      }),
  };
}

describe('the shared Codex home', () => {
  it('is written only when its content changes, and then whole: a reader in another process never sees a torn config', async () => {
    const home = join(folders.make('baton-codex-home-'), 'home');
    const a = { baseUrl: 'http://127.0.0.1:1/v1', model: 'baton-a' };
    const b = { baseUrl: 'http://127.0.0.1:2/v1', model: 'baton-a' };
    ensureCodexHome(home, a);
    const configPath = join(home, 'config.toml');
    const first = statSync(configPath);
    // The same endpoint again (every session start): nothing is rewritten.
    ensureCodexHome(home, a);
    expect(statSync(configPath).ino).toBe(first.ino);
    expect(statSync(configPath).mtimeMs).toBe(first.mtimeMs);
    expect(first.mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);

    // Changes are whole: alternate endpoints while another process reads.
    const catalog = join(home, 'model-catalog.json');
    const watcher = watchReads(configPath, [codexConfigToml(catalog, a), codexConfigToml(catalog, b)]);
    for (let i = 0; i < 1_000; i++) ensureCodexHome(home, i % 2 ? a : b);
    const { reads, torn } = await watcher.stop();
    expect(reads).toBeGreaterThan(0);
    expect(torn).toBe(0);
  }, 60_000);

  it("the user's MCP servers are in the home as Codex reads them: command, args and environment", () => {
    const env = { DB_URL: 'postgres://127.0.0.1/x?a="b"', EMPTY: '', ODD: 'tab\t, newline\n, del\u007f, é' };
    const home = ensureCodexHome(folders.make('baton-codex-data-'), {
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'gpt-test',
      mcpServers: {
        echo: { command: process.execPath, args: ['echo server.mjs'] },
        'db-2': { command: 'db', args: [], env },
      },
    });
    const listed = JSON.parse(
      execFileSync(codexBinaryPath(), ['mcp', 'list', '--json'], {
        env: { PATH: process.env.PATH, CODEX_HOME: home },
        encoding: 'utf8',
        // Codex warns on stderr that it makes no helper binaries in a temp folder.
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as { name: string; transport: { command: string; args: string[]; env: Record<string, string> | null } }[];
    expect(listed.map((s) => [s.name, s.transport.command, s.transport.args, s.transport.env ?? {}])).toEqual([
      ['db-2', 'db', [], env],
      ['echo', process.execPath, ['echo server.mjs'], {}],
    ]);
  });

  it("a home that cannot hold Baton's configuration is refused and no Codex session starts", async () => {
    const dataDir = folders.make('baton-codex-data-');
    // config.toml is a folder here: Baton cannot write its configuration.
    mkdirSync(join(dataDir, 'codex', 'home', 'config.toml'), { recursive: true });
    const h = open(dataDir);
    const threadId = await h.thread({ cwd: folders.make('baton-codex-ws-') });
    const ack = (await h.command({ type: 'thread.message.send', threadId, text: 'hello' })) as {
      ok: boolean;
      result: { runId: string };
    };
    await h.until(() => h.store.projections.get('runs', ack.result.runId)!.status === 'failed');
    const failed = h.store.events.readThreadAfter(threadId, 0).find((e) => e.type === 'run.terminal')!;
    expect(JSON.stringify(failed.payload)).toContain("does not hold Baton's configuration");
    expect(h.store.projections.list('sessions', threadId)).toEqual([]);
    expect(model.requests).toHaveLength(0);
  }, 60_000);

  it('threads that start together all reach the configured endpoint (live)', async () => {
    const dataDir = folders.make('baton-codex-data-');
    const h = open(dataDir);
    const threads = await Promise.all(
      Array.from({ length: 4 }, () => h.thread({ cwd: folders.make('baton-codex-ws-') })),
    );
    const runs = await Promise.all(
      threads.map(async (threadId) => {
        const ack = (await h.command({ type: 'thread.message.send', threadId, text: `hello from ${threadId}` })) as {
          ok: boolean;
          result: { runId: string };
        };
        expect(ack.ok).toBe(true);
        return ack.result.runId;
      }),
    );
    await h.until(() => runs.every((id) => h.store.projections.get('runs', id)!.status === 'completed'), 60_000);
    expect(model.requests.length).toBeGreaterThanOrEqual(4);
    expect(readFileSync(join(dataDir, 'codex', 'home', 'config.toml'), 'utf8')).toContain(model.baseUrl);
  }, 90_000);
});

let dataDirOfNext = '';
const openRuntime = useRuntime({
  handlers: (runtime) => {
    const provider = new CodexProvider(runtime, {
      endpoint: { baseUrl: model.baseUrl, model: 'gpt-5.1-codex', streamIdleTimeoutMs: 5_000 },
      dataDir: dataDirOfNext,
    });
    providers.push(provider);
    return provider.handlers();
  },
});
/** A runtime whose Codex keeps its home in `dataDir`. */
function open(dataDir: string): Harness {
  dataDirOfNext = dataDir;
  return openRuntime();
}
