import { afterEach, describe, expect, it } from 'vitest';
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startBaton } from '../../src/app/baton-app.js';
import { tempDir } from '../support/temp.js';
import { within } from '../support/within.js';
import { ThreadClient } from '../support/thread-client.js';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function baton(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', main, ...args],
      { env: { ...process.env, ...env }, timeout: 90_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Baton in this process on `dataDir` with the offline model (`env` configures it), stopped after the test. */
async function serveBaton(dataDir: string, port = 0, env: NodeJS.ProcessEnv = {}) {
  const app = await startBaton(
    loadConfig(env, { dataDir, port, token: 'cli-test-token-0123456789', model: 'scripted' }),
    pino({ level: 'silent' }),
  );
  cleanups.push(() => app.stop());
  return app;
}

/** `baton tail` as a child process: what it printed so far, a wait for what it must print, and its exit. */
function tailProcess(threadId: string, env: NodeJS.ProcessEnv) {
  const tail = spawn(process.execPath, ['--import', 'tsx', main, 'tail', threadId], {
    env: { ...process.env, ...env },
  });
  cleanups.push(() => void tail.kill('SIGKILL'));
  const seen = { out: '', err: '' };
  let wake = () => undefined as void;
  tail.stdout.on('data', (c: Buffer) => ((seen.out += c.toString()), wake()));
  tail.stderr.on('data', (c: Buffer) => ((seen.err += c.toString()), wake()));
  return {
    seen,
    exited: new Promise<number | null>((resolve) => tail.once('exit', (code) => resolve(code))),
    printed: (what: () => boolean, label: string) =>
      within(
        new Promise<void>((resolve) => {
          wake = () => void (what() && resolve());
          wake();
        }),
        30_000,
        `tail never printed ${label}: ${seen.out}${seen.err}`,
      ),
  };
}

describe('the baton CLI', () => {
  it('demo: a reply, an approval, an interrupt and a rollback through the real Codex, printed as they stream', async () => {
    const { code, stdout, stderr } = await baton(['demo']);
    expect(stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(code).toBe(0);
    expect(stdout).toContain("Hello! I am Codex, running offline against Baton's scripted model.");
    expect(stdout).toMatch(/\[needs approval\] .*hello\.txt/);
    expect(stdout).toContain('hello.txt exists: true');
    expect(stdout).toContain('[run interrupted]');
    expect(stdout).toContain('[rolled back to run 1]');
    expect(stdout.trim().split('\n').filter(Boolean).slice(-2)).toEqual(['  hello.txt exists: false', 'Done.']);
  }, 120_000);

  it('client commands against a running Baton; errors are one clear line', async () => {
    const data = tempDir('baton-cli-');
    const ws = tempDir('baton-cli-ws-');
    cleanups.push(data.cleanup, ws.cleanup);
    const app = await serveBaton(data.dir);
    const env = { BATON_URL: app.url, BATON_TOKEN: app.token };

    const created = await baton(['new', ws.dir, 'From the CLI'], env);
    expect(created.code).toBe(0);
    const threadId = created.stdout.trim();
    expect(threadId).toMatch(/^thr_/);
    // --wait prints the run as it streams and exits when it ends (0: completed).
    const waited = await baton(['send', threadId, 'wait', 'for', 'it', '--wait'], env);
    expect(waited.code).toBe(0);
    expect(waited.stderr).toMatch(/^sending\.\.\.\nstarted: run run_\w+ \(message msg_\w+\)\n$/);
    expect(waited.stdout).toBe(
      '\n> wait for it\n\n< (offline scripted model) I received: wait for it\n  [checkpoint for run 1: ready, 0 file(s) changed]\n  [run completed]\n',
    );
    // Without it, the run is started and the command is done.
    const sent = await baton(['send', threadId, 'hello', 'there'], env);
    expect(sent.stdout).toMatch(/^started: run run_\w+ \(message msg_\w+\)/);
    const listed = await baton(['threads'], env);
    expect(listed.stdout).toContain(threadId);
    expect(listed.stdout).toContain('From the CLI');

    const onClaude = await baton(['new', ws.dir, 'On Claude', '--provider', 'claude'], env);
    expect(onClaude.code).toBe(0);
    expect(app.runtime.store.projections.get('threads', onClaude.stdout.trim())).toMatchObject({ provider: 'claude' });
    const noSuchProvider = await baton(['new', ws.dir, '--provider', 'nope'], env);
    expect(noSuchProvider.code).toBe(2);

    const refused = await baton(['interrupt', 'run_nope'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim()).toBe('baton: not_found: run.interrupt: no run run_nope');
    const unreachable = await baton(['threads'], { BATON_URL: 'http://127.0.0.1:9', BATON_TOKEN: 'x' });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
    expect(unreachable.stderr).toMatch(/^baton: .*cannot reach Baton at http:\/\/127\.0\.0\.1:9/);
  }, 120_000);

  it('tail follows a thread across a restart of Baton, and stops, saying why, at another Baton on its address', async () => {
    const data = tempDir('baton-cli-tail-');
    const other = tempDir('baton-cli-tail-other-');
    const ws = tempDir('baton-cli-tail-ws-');
    cleanups.push(data.cleanup, other.cleanup, ws.cleanup);
    let app = await serveBaton(data.dir);
    const port = Number(new URL(app.url).port);
    const env = { BATON_URL: app.url, BATON_TOKEN: app.token };
    const threadId = (await baton(['new', ws.dir, 'Tailed'], env)).stdout.trim();
    expect(threadId).toMatch(/^thr_/);

    const { seen, exited, printed } = tailProcess(threadId, env);
    await printed(() => seen.err.includes(`following ${threadId}`), 'that it follows');

    // The same Baton again (its data dir), after a stop that closed the connection itself.
    await app.stop();
    app = await serveBaton(data.dir, port);
    await printed(() => seen.err.includes('connecting again'), 'that it connects again');
    expect((await baton(['send', threadId, 'after the restart'], env)).code).toBe(0);
    await printed(() => seen.out.includes('> after the restart') && seen.out.includes('[run completed]'), 'the run');

    // Another Baton at the address, its own data dir: the cursor is in a log it does not have.
    await app.stop();
    app = await serveBaton(other.dir, port);
    expect(await within(exited, 30_000, `tail did not end: ${seen.out}${seen.err}`)).toBe(1);
    expect(seen.err.trim().split('\n').at(-1)).toMatch(
      new RegExp(`^baton: not_found: stopped following ${threadId}: .*is another Baton's event log`),
    );
  }, 120_000);

  it('tail prints the conversation so far, then follows; an unknown thread is one clear error', async () => {
    const data = tempDir('baton-cli-history-');
    const ws = tempDir('baton-cli-history-ws-');
    cleanups.push(data.cleanup, ws.cleanup);
    const app = await serveBaton(data.dir);
    const env = { BATON_URL: app.url, BATON_TOKEN: app.token };
    const threadId = (await baton(['new', ws.dir, 'History'], env)).stdout.trim();
    const watcher = await ThreadClient.open(app.url, app.token, threadId);
    cleanups.push(() => watcher.client.close());
    expect((await baton(['send', threadId, 'before the tail'], env)).code).toBe(0);
    await watcher.next((e) => (e.type === 'run.terminal' ? e : undefined), 'the first run to end');

    const { seen, printed } = tailProcess(threadId, env);
    await printed(
      () => seen.err.includes(`following ${threadId}`) && seen.out.includes('[run completed]'),
      'the history',
    );
    expect(seen.out).toBe(
      [
        '',
        '> before the tail',
        '',
        '< (offline scripted model) I received: before the tail',
        '  [checkpoint for run 1: ready, 0 file(s) changed]',
        '  [run completed]',
        '',
      ].join('\n'),
    );
    expect((await baton(['send', threadId, 'while tailing'], env)).code).toBe(0);
    await printed(
      () => seen.out.includes('I received: while tailing') && seen.out.endsWith('[run completed]\n'),
      'the run',
    );
    expect(seen.out.match(/\[run completed\]/g)).toHaveLength(2);

    const unknown = await baton(['tail', 'thr_01M8X000000000000000000000'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('baton: not_found: no thread thr_01M8X000000000000000000000');
  }, 120_000);

  it('send --wait exits 1 when its run does not complete (interrupted mid-stream)', async () => {
    const data = tempDir('baton-cli-wait-');
    const ws = tempDir('baton-cli-wait-ws-');
    cleanups.push(data.cleanup, ws.cleanup);
    // The offline model echoes the message a word every 300 ms: 40 words leave 12 s to interrupt
    // it (a CLI process start on a loaded machine takes seconds).
    const app = await serveBaton(data.dir, 0, { BATON_SCRIPTED_DELAY_MS: '300' });
    const env = { BATON_URL: app.url, BATON_TOKEN: app.token };
    const threadId = (await baton(['new', ws.dir, 'Waited'], env)).stdout.trim();
    const send = spawn(
      process.execPath,
      ['--import', 'tsx', main, 'send', threadId, 'long '.repeat(40).trim(), '--wait'],
      {
        env: { ...process.env, ...env },
      },
    );
    cleanups.push(() => void send.kill('SIGKILL'));
    let out = '';
    let err = '';
    const exited = new Promise<number | null>((resolve) => send.once('exit', (code) => resolve(code)));
    const runId = await within(
      new Promise<string>((resolve) => {
        // Streaming (its reply begun) and its run named on stderr.
        const check = () => {
          const started = /started: run (run_\w+)/.exec(err);
          if (started && out.includes('< ')) resolve(started[1]!);
        };
        send.stdout.on('data', (c: Buffer) => ((out += c.toString()), check()));
        send.stderr.on('data', (c: Buffer) => ((err += c.toString()), check()));
      }),
      30_000,
      `send --wait never started streaming: ${out}${err}`,
    );
    expect((await baton(['interrupt', runId], env)).code).toBe(0);
    expect(await within(exited, 30_000, `send --wait did not end: ${out}${err}`)).toBe(1);
    expect(out.endsWith('  [run interrupted]\n')).toBe(true);
  }, 120_000);

  it('a bad argument is refused before anything is sent: exit code 2 and one line naming the argument', async () => {
    // No server listens there: a command that got as far as connecting would say "cannot reach".
    const env = { BATON_URL: 'http://127.0.0.1:9', BATON_TOKEN: 'x' };
    const decision = await baton(['approve', 'req_1', '--decision', 'maybe'], env);
    expect(decision.code).toBe(2);
    expect(decision.stderr.trim().split('\n')).toHaveLength(1);
    expect(decision.stderr).toMatch(/^baton: invalid_command: approve --decision "maybe" is invalid: .*accept/);
    const ordinal = await baton(['rollback', 'thr_1', 'two'], env);
    expect(ordinal.code).toBe(2);
    expect(ordinal.stderr.trim()).toBe(
      'baton: invalid_command: rollback <runOrdinal> "two" is invalid: a run ordinal is a whole number',
    );
    const missing = await baton(['send', 'thr_1'], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe('baton: invalid_command: send needs <threadId> <text>');
    // An option the command does not read is refused, not ignored (a --decision on send, say).
    const stray = await baton(['send', 'thr_1', 'hello', '--decision', 'accept', '--hold'], env);
    expect(stray.code).toBe(2);
    expect(stray.stderr.trim()).toBe(
      'baton: invalid_command: send does not take --decision, --hold (see baton --help)',
    );
  }, 60_000);
});
