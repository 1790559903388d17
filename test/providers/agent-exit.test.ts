import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { endAgent } from '../../src/providers/agent-exit.js';

/** A real process that is ready (it says so on stdout); with `ignoreTerm` it takes no notice of SIGTERM. */
async function agent(ignoreTerm: boolean): Promise<ChildProcess> {
  const code = `${ignoreTerm ? "process.on('SIGTERM', () => undefined);" : ''} setInterval(() => undefined, 1000); console.log('ready');`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'ignore'] });
  children.push(child);
  await once(child.stdout!, 'data');
  return child;
}

const children: ChildProcess[] = [];
afterEach(() => children.splice(0).forEach((c) => c.kill('SIGKILL')));

const exitOf = (child: ChildProcess): Promise<void> => new Promise((resolve) => child.once('exit', () => resolve()));

describe('endAgent: an agent asked to end is killed should it not', () => {
  it('an agent that ends on SIGTERM gets nothing more', async () => {
    const child = await agent(false);
    const sent: NodeJS.Signals[] = [];
    await endAgent((s) => (sent.push(s), child.kill(s)), exitOf(child), 'SIGTERM', 10_000);
    expect(sent).toEqual(['SIGTERM']);
    expect(child.signalCode).toBe('SIGTERM');
  });

  it('an agent that takes no notice of SIGTERM is SIGKILLed after the grace period', async () => {
    const child = await agent(true);
    const sent: NodeJS.Signals[] = [];
    await endAgent((s) => (sent.push(s), child.kill(s)), exitOf(child), 'SIGTERM', 300);
    expect(sent).toEqual(['SIGTERM', 'SIGKILL']);
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('with no first signal (its input was closed) it waits the grace period, then SIGKILLs', async () => {
    const child = await agent(true);
    const sent: NodeJS.Signals[] = [];
    await endAgent((s) => (sent.push(s), child.kill(s)), exitOf(child), null, 300);
    expect(sent).toEqual(['SIGKILL']);
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('never waits for ever: an exit that never comes is given up on a grace period after the SIGKILL', async () => {
    const sent: NodeJS.Signals[] = [];
    const started = performance.now();
    await endAgent((s) => void sent.push(s), new Promise<void>(() => undefined), 'SIGTERM', 100);
    expect(sent).toEqual(['SIGTERM', 'SIGKILL']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });
});
