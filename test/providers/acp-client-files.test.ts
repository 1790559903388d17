import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestError } from '@agentclientprotocol/sdk';
import { readTextFile, writeTextFile } from '../../src/providers/acp/acp-client-files.js';
import { AcpTerminals } from '../../src/providers/acp/acp-terminals.js';
import { isAlive } from '../support/processes.js';
import { TempFolders } from '../support/temp.js';

/** Baton's client side of ACP: files confined to the thread's cwd, terminals as real processes. */
const temps = new TempFolders();
afterEach(() => temps.removeAll());

describe('ACP client files', () => {
  it('reads and writes inside the cwd, by line and limit', () => {
    const cwd = realpathSync(temps.make('acp-fs-'));
    writeTextFile(cwd, { sessionId: 's', path: join(cwd, 'sub', 'a.txt'), content: 'one\ntwo\nthree' });
    expect(readFileSync(join(cwd, 'sub', 'a.txt'), 'utf8')).toBe('one\ntwo\nthree');
    expect(readTextFile(cwd, { sessionId: 's', path: join(cwd, 'sub', 'a.txt'), line: 2, limit: 1 }).content).toBe(
      'two',
    );
  });

  it('refuses a path outside the cwd (also through a symlink, and a relative one) with an error the agent sees', () => {
    const cwd = realpathSync(temps.make('acp-fs-'));
    const outside = realpathSync(temps.make('acp-out-'));
    symlinkSync(outside, join(cwd, 'link'));
    for (const path of [join(outside, 'x.txt'), join(cwd, 'link', 'x.txt'), join(cwd, '..', 'x.txt'), 'x.txt'])
      expect(() => writeTextFile(cwd, { sessionId: 's', path, content: 'no' })).toThrow(RequestError);
    expect(existsSync(join(outside, 'x.txt'))).toBe(false);
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    expect(() => readTextFile(cwd, { sessionId: 's', path: join(outside, 'secret.txt') })).toThrow(RequestError);
  });
});

describe('ACP terminals', () => {
  it('runs a real process in the cwd, gives its output and exit', async () => {
    const cwd = realpathSync(temps.make('acp-term-'));
    mkdirSync(join(cwd, 'inner'));
    const terminals = new AcpTerminals(() => cwd, { PATH: process.env.PATH ?? '' });
    const { terminalId } = terminals.create({ sessionId: 's', command: 'pwd && echo hi', cwd: join(cwd, 'inner') });
    expect(await terminals.waitForExit({ sessionId: 's', terminalId })).toEqual({ exitCode: 0, signal: null });
    expect(terminals.output({ sessionId: 's', terminalId }).output).toBe(`${join(cwd, 'inner')}\nhi\n`);
    expect(() => terminals.create({ sessionId: 's', command: 'true', cwd: '/' })).toThrow(RequestError);
  });

  it('kills every running terminal (interrupt, shutdown), by its process group', async () => {
    const cwd = realpathSync(temps.make('acp-term-'));
    const terminals = new AcpTerminals(() => cwd, { PATH: process.env.PATH ?? '' });
    const { terminalId } = terminals.create({ sessionId: 's', command: 'sleep 30 & sleep 30; wait' });
    const [pid] = terminals.running;
    await terminals.killAll();
    expect(isAlive(pid!)).toBe(false);
    expect((await terminals.waitForExit({ sessionId: 's', terminalId })).signal).toBe('SIGKILL');
    expect(terminals.running).toEqual([]);
  });
});
