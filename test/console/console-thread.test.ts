import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useConsoleBaton } from '../support/console-baton.js';
import { OFFLINE_COMMAND, SLOW_WORDS as slowWords } from '../../src/providers/model/offline-assistant.js';
import {
  agentWait,
  createThread,
  holdCommandAcks,
  openConsole,
  runHeader,
  runStatus,
  screenshot,
  sendMessage,
  switchProvider,
} from './console-page.js';

// A real `baton serve` child (the real Codex against the scripted model) driven through a real chromium.

const rig = useConsoleBaton();

describe('a thread in the console', () => {
  it('creates a thread and streams the reply in', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const threadId = await createThread(page, rig.baton.workspace(), 'Streaming');
    expect(page.url()).toBe(`${rig.baton.url}/#/thread/${threadId}`);
    await page.getByRole('heading', { name: 'Streaming' }).waitFor();
    await sendMessage(page, '[slow] count for me');
    await page.locator('.message.user', { hasText: '[slow] count for me' }).waitFor();
    // Part of the reply is on screen while the rest is still coming.
    const reply = page.locator('.message.assistant');
    await reply.and(page.locator('[aria-busy="true"]')).filter({ hasText: 'w03' }).waitFor({ timeout: agentWait });
    expect(await reply.locator('.text').textContent()).not.toContain(slowWords.at(-1));
    await reply.and(page.locator('[aria-busy="false"]')).waitFor({ timeout: agentWait });
    expect(await reply.locator('.text').textContent()).toBe(slowWords.join(' '));
    await runStatus(page, 1, 'completed');
    // The threads list shows it with its run.
    await page.getByRole('link', { name: 'Threads' }).click();
    const row = page.locator(`.thread-row[data-thread-id="${threadId}"]`);
    await row.filter({ hasText: '1 run' }).filter({ hasText: 'idle' }).waitFor();
    expect(rig.browser.problems).toEqual([]);
  });

  it('keeps what was typed while a send waits for its ack', async () => {
    const page = await rig.browser.page();
    const acks = await holdCommandAcks(page);
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    acks.hold();
    await sendMessage(page, 'the first');
    await acks.held;
    const box = page.getByRole('textbox', { name: 'Message', exact: true });
    await box.fill('the second, typed before the ack');
    acks.release();
    await page.locator('.message.user', { hasText: 'the first' }).waitFor({ timeout: agentWait });
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':enabled')).waitFor();
    expect(await box.inputValue()).toBe('the second, typed before the ack');
    await runStatus(page, 1, 'completed');
    expect(rig.browser.problems).toEqual([]);
  });

  it('asks for approval in place; approved, the command runs and its file shows in the tool output', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const ws = rig.baton.workspace();
    await createThread(page, ws);
    await sendMessage(page, '[approve] make a file');
    const approval = page.locator('.request.approval');
    await approval.and(page.locator('.status-pending')).waitFor({ timeout: agentWait });
    expect(await approval.locator('.command').textContent()).toContain('offline-made.txt');
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.locator('.tool-output', { hasText: 'offline-made.txt' }).waitFor({ timeout: agentWait });
    await runStatus(page, 1, 'completed');
    await approval.and(page.locator('.status-resolved')).waitFor();
    expect(readFileSync(join(ws, 'offline-made.txt'), 'utf8')).toBe('made by the offline model\n');
    expect(rig.browser.problems).toEqual([]);
  });

  it("shows a Claude command as it shows Codex's: the command, approved in place, and its output", async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const ws = rig.baton.workspace();
    await createThread(page, ws);
    await switchProvider(page, 'claude');
    await sendMessage(page, '[approve] make a file');
    const approval = page.locator('.request.approval');
    await approval.and(page.locator('.status-pending')).waitFor({ timeout: agentWait });
    await approval.getByRole('button', { name: 'Approve', exact: true }).click();
    const tool = page.locator('.tool-call.status-completed');
    await tool.locator('.tool-output', { hasText: 'offline-made.txt' }).waitFor({ timeout: agentWait });
    expect(await tool.locator('.command').textContent()).toBe(OFFLINE_COMMAND);
    await runStatus(page, 1, 'completed');
    expect(readFileSync(join(ws, 'offline-made.txt'), 'utf8')).toBe('made by the offline model\n');
    expect(rig.browser.problems).toEqual([]);
  });

  it('interrupts a run that does not end', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[hang] take your time');
    const bar = page.locator('.active-run');
    await bar.filter({ hasText: 'running' }).waitFor({ timeout: agentWait });
    await bar.getByRole('button', { name: 'Interrupt' }).click();
    await runStatus(page, 1, 'interrupted');
    await bar.waitFor({ state: 'detached' });
    expect(rig.browser.problems).toEqual([]);
  });

  it('rolls back to a run: the files are restored and the later run is marked rolled back', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const ws = rig.baton.workspace();
    await createThread(page, ws, 'Rollback');
    await sendMessage(page, 'first, no files');
    await runStatus(page, 1, 'completed');
    await sendMessage(page, '[approve] now a file');
    await page
      .locator('.request.approval.status-pending')
      .getByRole('button', { name: 'Approve', exact: true })
      .click();
    await runStatus(page, 2, 'completed');
    expect(existsSync(join(ws, 'offline-made.txt'))).toBe(true);
    await screenshot(page, 'thread');

    const checkpoints = page.getByRole('region', { name: 'Checkpoints' });
    await checkpoints.getByRole('button', { name: 'Roll back to run 1' }).click();
    await checkpoints.getByRole('button', { name: 'Confirm rollback' }).click();
    await runStatus(page, 2, 'rolled_back');
    expect(await runHeader(page, 1).getAttribute('data-run-status')).toBe('completed');
    expect(await runHeader(page, 2).locator('.run-status').textContent()).toBe('rolled back');
    await page.locator('.rolled-back .tool-output', { hasText: 'offline-made.txt' }).waitFor();
    expect(existsSync(join(ws, 'offline-made.txt'))).toBe(false);

    // The same thread at a phone's width: one column, every control still there.
    const narrow = await rig.browser.page({ width: 390, height: 844 });
    await openConsole(narrow, rig.baton.consoleUrl);
    await narrow.goto(page.url());
    await runStatus(narrow, 2, 'rolled_back');
    await narrow.getByRole('button', { name: 'Send', exact: true }).waitFor();
    expect(await narrow.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(narrow, 'thread-narrow');
    expect(rig.browser.problems).toEqual([]);
  });
});
