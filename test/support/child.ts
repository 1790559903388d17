import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs a TypeScript fixture in a real child process, hands every line it prints to
 * `onLine`, and SIGKILLs it as soon as `onLine` returns true. Resolves with the signal
 * that ended it; rejects if it stalls for `stallMs` without being killed.
 */
export function runUntilKilled(
  fixture: string,
  args: string[],
  onLine: (line: string) => boolean,
  stallMs = 30_000,
): Promise<{ signal: NodeJS.Signals | null; stderr: string }> {
  const script = fileURLToPath(new URL(`../fixtures/${fixture}`, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${fixture} stalled: ${stderr}`));
    }, stallMs);
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) if (onLine(line)) child.kill('SIGKILL');
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('exit', (_code, signal) => {
      clearTimeout(timer);
      resolve({ signal, stderr });
    });
    child.on('error', reject);
  });
}
