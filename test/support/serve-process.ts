import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

/**
 * `baton serve` as a real child process on a free loopback port with the offline model;
 * resolves with its URL once it listens, rejects with its stderr if it exits first.
 * Kill what it returns in an afterEach. `script` is the entry point (a fixture that wraps
 * `serve` takes the same arguments). `model: 'configured'` leaves out `--model scripted`, so
 * the endpoints `env` names (`BATON_CLAUDE_BASE_URL`, say) are used.
 */
export function serveProcess(
  dataDir: string,
  env: Record<string, string> = {},
  script = main,
  model: 'scripted' | 'configured' = 'scripted',
): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      script,
      'serve',
      '--data-dir',
      dataDir,
      '--port',
      '0',
      ...(model === 'scripted' ? ['--model', 'scripted'] : []),
    ],
    {
      env: { ...process.env, BATON_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running behind the failed test.
      child.kill('SIGKILL');
      reject(new Error(`baton serve did not start: ${err}`));
    }, 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1]!, stderr: () => err });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`baton serve exited (${code}): ${err}`), { exitCode: code, stderr: err }));
    });
  });
}

/** Resolves with the exit code of a `baton serve` that is expected to refuse to start. */
export function serveExit(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  return serveProcess(dataDir, env).then(
    (p) => {
      p.child.kill('SIGKILL');
      throw new Error(`baton serve started on ${p.url} but should have refused`);
    },
    (e: { exitCode?: number | null; stderr?: string }) => ({ code: e.exitCode ?? null, stderr: e.stderr ?? '' }),
  );
}
