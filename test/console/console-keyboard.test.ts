import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useConsoleBaton } from '../support/console-baton.js';
import { agentWait, createThread, openConsole, runStatus } from './console-page.js';
import { mouseOnly, tabAround, unreached } from './keyboard.js';

// The console by keyboard alone: every control a Tab stop with a focus ring a person sees,
// the composer sending with Ctrl+Enter, the diff dialog keeping focus and giving it back.

const rig = useConsoleBaton();
let page: Page;
let threadId: string;
beforeAll(async () => {
  page = await rig.browser.page();
  await openConsole(page, rig.baton.consoleUrl);
  threadId = await createThread(page, rig.baton.workspace(), 'By keyboard');
});

/** Tabs all the way round the page: every control reached, each with a visible focus ring. */
async function everyControlReached(): Promise<string[]> {
  const stops = await tabAround(page);
  expect(stops.filter((s) => !s.focusVisible || !s.ringed).map((s) => s.name)).toEqual([]);
  expect(await unreached(page)).toEqual([]);
  expect(await mouseOnly(page)).toEqual([]);
  return stops.map((s) => s.name);
}

describe('the console by keyboard', () => {
  it('sends with Ctrl+Enter, keeps focus in the composer, and answers an approval by keyboard', async () => {
    const message = page.getByRole('textbox', { name: 'Message', exact: true });
    await message.focus();
    await page.keyboard.type('[approve] make the file');
    await page.keyboard.press('Control+Enter');
    await page.locator('.message.user', { hasText: '[approve] make the file' }).waitFor();
    expect(await message.inputValue()).toBe('');
    expect(await message.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    const approve = page
      .locator('.request.approval.status-pending')
      .getByRole('button', { name: 'Approve', exact: true });
    await approve.waitFor({ timeout: agentWait });
    await approve.focus();
    await page.keyboard.press('Enter');
    await runStatus(page, 1, 'completed');
    // The Send button, pressed by keyboard, hands focus back to the message box (it is disabled once empty).
    await message.fill('and a second one');
    await page.getByRole('button', { name: 'Send', exact: true }).focus();
    await page.keyboard.press('Enter');
    await runStatus(page, 2, 'completed');
    expect(await message.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    expect(rig.browser.problems).toEqual([]);
  });

  it('reaches every control of the threads list, the thread, its graph and its charts', async () => {
    await page.goto(`${rig.baton.url}/#/threads`);
    await page.locator('.thread-row').first().waitFor();
    const threads = await everyControlReached();
    expect(threads).toEqual(expect.arrayContaining([expect.stringContaining('Create thread')]));
    await page.goto(`${rig.baton.url}/#/thread/${threadId}`);
    await runStatus(page, 2, 'completed');
    const thread = await everyControlReached();
    for (const name of ['Conversation', 'Fork from here', 'Show diff', 'Roll back to run 1', 'Message', 'Log out'])
      expect(thread).toEqual(expect.arrayContaining([expect.stringContaining(name)]));
    await page.goto(`${rig.baton.url}/#/thread/${threadId}/graph`);
    await page.getByRole('tree').waitFor();
    await everyControlReached();
    await page.goto(`${rig.baton.url}/#/thread/${threadId}/charts`);
    await page.locator('.sc-actor').first().waitFor();
    // The chart is laid out on a worker: its own controls appear once it is drawn.
    await page.locator('svg.sc-chart').first().waitFor();
    await everyControlReached();
    expect(rig.browser.problems).toEqual([]);
  });

  it('asks to confirm a rollback with focus on the safe answer, and gives it back when kept', async () => {
    await page.goto(`${rig.baton.url}/#/thread/${threadId}`);
    const side = page.getByRole('complementary', { name: 'Thread details' });
    const rollback = side.getByRole('button', { name: 'Roll back to run 1' });
    await rollback.focus();
    await page.keyboard.press('Enter');
    const keep = side.getByRole('button', { name: 'Keep' });
    await keep.waitFor();
    expect(await keep.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await rollback.waitFor();
    expect(await rollback.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    expect(rig.browser.problems).toEqual([]);
  });

  it('keeps Tab inside the diff dialog, closes it with Escape and gives focus back to its button', async () => {
    await page.goto(`${rig.baton.url}/#/thread/${threadId}`);
    const show = page.getByRole('complementary', { name: 'Thread details' }).getByRole('button', { name: 'Show diff' });
    await show.first().focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.locator('.diff-file-entry').first().waitFor();
    const inDialog = () => page.evaluate<boolean>("!!document.activeElement?.closest('dialog')");
    expect(await inDialog()).toBe(true);
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press('Tab');
      expect(await inDialog()).toBe(true);
    }
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Shift+Tab');
      expect(await inDialog()).toBe(true);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await show.first().evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    expect(rig.browser.problems).toEqual([]);
  });
});
