import { execFile } from 'node:child_process';
import { readdirSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `baton demo --provider claude`, run as the real CLI in a child process: offline out of the
 * box (the real Claude agent, Baton's scripted Messages-API model), and it leaves no agent behind.
 */
const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

function baton(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', main, ...args], { timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Processes whose working directory is (or was) inside `dir`. */
function processesIn(dir: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      } catch {
        return false; // gone, or not ours to read
      }
    });
}

describe('baton demo --provider claude', () => {
  it('a reply, an approval, an interrupt and a rollback through the real Claude agent, printed as they stream', async () => {
    const { code, stdout, stderr } = await baton(['demo', '--provider', 'claude']);
    expect(stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(code).toBe(0);
    expect(stdout).toContain('(the real Claude agent)');
    expect(stdout).toContain("Hello! I am Claude, running offline against Baton's scripted Messages-API model.");
    expect(stdout).toMatch(/\[needs approval\] .*hello\.txt/);
    expect(stdout).toContain('hello.txt exists: true');
    expect(stdout).toContain('[run interrupted]');
    expect(stdout).toContain('[rolled back to run 1]');
    expect(stdout.trim().split('\n').filter(Boolean).slice(-2)).toEqual(['  hello.txt exists: false', 'Done.']);
    const workspace = /workspace (\S+)/.exec(stdout)![1]!;
    expect(processesIn(workspace)).toEqual([]);
  }, 120_000);

  it('an unknown demo provider is a usage error: exit code 2, one line', async () => {
    const { code, stderr } = await baton(['demo', '--provider', 'acp']);
    expect(code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^baton: invalid_command: demo --provider "acp" is invalid/);
  }, 60_000);
});
