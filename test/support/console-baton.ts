import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { BatonClient } from '../../src/client/baton-client.js';
import { launchBrowser, type BrowserSession } from './browser.js';
import { tempDir } from './temp.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixture = join(repo, 'test/console/fixtures/console-serve.ts');

export interface ConsoleBaton {
  child: ChildProcess;
  /** Baton's own URL (the API, `/healthz`). */
  url: string;
  /** The console URL `baton serve` printed: it opens the console logged in. */
  consoleUrl: string;
  token: string;
  /** Its data dir (the caller's, when it passed one: then `stop` leaves it). */
  dataDir: string;
  /** A fresh workspace for threads. */
  workspace(): string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM (Baton stops its agents), then the folders go. */
  stop(): Promise<void>;
}

function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The tests drive the bundle Baton serves: built by `npm ci`, rebuilt here when a console
 * source is newer than it (one test file at a time builds, the others wait for it).
 */
export function ensureConsoleBuilt(): void {
  const index = join(repo, 'console/dist/index.html');
  const stale = () => {
    try {
      return (
        statSync(index).mtimeMs <
        Math.max(newestIn(join(repo, 'console/src')), statSync(join(repo, 'console/index.html')).mtimeMs)
      );
    } catch {
      return true;
    }
  };
  if (!stale()) return;
  const lock = join(repo, 'console/.build-lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is held: remove it if no build runs`);
      spawnSync('sleep', ['0.2']);
    }
  }
  try {
    if (!stale()) return;
    const build = spawnSync('npm', ['run', 'console:build'], { cwd: repo, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`npm run console:build failed: ${build.stderr}${build.stdout}`);
  } finally {
    rmdirSync(lock);
  }
}

/**
 * `baton serve` in a child process (through a fixture that scripts the offline model: see
 * test/console/fixtures/console-serve.ts) on a free loopback port, with a fresh data dir;
 * resolves once it has printed its console URL. A restart passes the port and data dir of
 * the Baton it replaces (the same token, the same threads).
 */
export async function startConsoleBaton(options: { port?: number; dataDir?: string } = {}): Promise<ConsoleBaton> {
  ensureConsoleBuilt();
  const data = options.dataDir ? { dir: options.dataDir, cleanup: () => {} } : tempDir('baton-console-');
  const workspaces: (() => void)[] = [];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fixture,
      'serve',
      '--data-dir',
      data.dir,
      '--port',
      String(options.port ?? 0),
      '--model',
      'scripted',
    ],
    { env: { ...process.env, BATON_LOG_LEVEL: 'info', BATON_TOKEN: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const printed = await new Promise<{ url: string; consoleUrl: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`baton serve printed no console URL: ${out}${err}`));
    }, 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      const consoleUrl = /console +(http:\/\/\S+)/.exec(out)?.[1];
      if (url && consoleUrl) {
        clearTimeout(timer);
        resolve({ url, consoleUrl });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`baton serve exited (${code}): ${err}`));
    });
  });
  return {
    child,
    ...printed,
    token: decodeURIComponent(/#token=(.*)$/.exec(printed.consoleUrl)![1]!),
    dataDir: data.dir,
    workspace() {
      const ws = tempDir('baton-console-ws-');
      workspaces.push(ws.cleanup);
      return realpathSync(ws.dir);
    },
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        await exited;
        clearTimeout(timer);
      }
      for (const remove of workspaces) remove();
      data.cleanup();
    },
  };
}

export interface ConsoleRig {
  readonly baton: ConsoleBaton;
  readonly browser: BrowserSession & { problems: string[] };
  /** A typed client on the same Baton (only with `{ client: true }`). */
  readonly client: BatonClient;
}

/**
 * One `baton serve` and one chromium for a test file (started before its tests, stopped after
 * them), and a typed client beside the page when a test drives Baton directly too.
 */
export function useConsoleBaton(options: { client?: boolean } = {}): ConsoleRig {
  let baton: ConsoleBaton | undefined;
  let browser: (BrowserSession & { problems: string[] }) | undefined;
  let client: BatonClient | undefined;
  beforeAll(async () => {
    baton = await startConsoleBaton();
    browser = await launchBrowser();
    if (options.client) client = await BatonClient.connect(baton.url, baton.token);
  });
  afterAll(async () => {
    client?.close();
    await browser?.close();
    await baton?.stop();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`the console rig has no ${what} (outside its tests?)`);
    return value;
  };
  return {
    get baton() {
      return ready(baton, 'Baton');
    },
    get browser() {
      return ready(browser, 'browser');
    },
    get client() {
      return ready(client, 'client (ask for { client: true })');
    },
  };
}
