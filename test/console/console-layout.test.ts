import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { useConsoleBaton } from '../support/console-baton.js';
import { agentWait, createThread, openConsole, runStatus, sendMessage } from './console-page.js';

// The console at a laptop's 1280x800 and a phone's 390x844: nothing wider than the screen
// (no sideways scrolling), and each page's main controls on screen without hunting for them.

const rig = useConsoleBaton();
let threadId: string;
beforeAll(async () => {
  // A thread with a finished run, a run waiting for an approval, and a message queued behind it.
  const page = await rig.browser.page();
  await openConsole(page, rig.baton.consoleUrl);
  threadId = await createThread(page, rig.baton.workspace(), 'A thread whose title is long enough to wrap on a phone');
  await sendMessage(page, 'the first message');
  await runStatus(page, 1, 'completed');
  await sendMessage(page, '[approve] make the file');
  await page.locator('.request.approval.status-pending').waitFor({ timeout: agentWait });
  await page.getByLabel('Dispatch').selectOption('queue_after_active');
  await sendMessage(page, 'queued behind it');
  await page.getByRole('region', { name: 'Queue' }).waitFor();
  await page.context().close();
});

/** Whether the element is wholly on screen (the viewport), as it stands. */
async function onScreen(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => {
    const { innerWidth, innerHeight } = el.ownerDocument.defaultView!;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
  });
}

const noSidewaysScroll = (page: Page) =>
  page.evaluate<{ scrollWidth: number; innerWidth: number }>(
    '({ scrollWidth: document.documentElement.scrollWidth, innerWidth })',
  );

describe.each([
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
])('the console at $width x $height', (viewport) => {
  it('threads list, thread, graph and charts: no sideways scroll, the main controls on screen', async () => {
    const page = await rig.browser.page(viewport);
    await openConsole(page, rig.baton.consoleUrl);
    const fits = async () => {
      const { scrollWidth, innerWidth } = await noSidewaysScroll(page);
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      for (const control of [page.locator('.connection'), page.getByRole('button', { name: 'Log out' })])
        expect(await onScreen(control)).toBe(true);
    };

    await page.goto(`${rig.baton.url}/#/threads`);
    await page.locator('.thread-row').first().waitFor();
    await fits();
    for (const control of [
      page.locator('.thread-link').first(),
      page.getByLabel('Workspace (absolute path)'),
      page.getByRole('button', { name: 'Create thread' }),
    ])
      expect(await onScreen(control)).toBe(true);

    await page.goto(`${rig.baton.url}/#/thread/${threadId}`);
    const approve = page.getByRole('button', { name: 'Approve', exact: true });
    await approve.waitFor();
    await fits();
    // The conversation, the message box and its Send, and the active run's Interrupt and Stop, from the start.
    for (const control of [
      page.getByRole('list', { name: 'Conversation' }),
      page.getByRole('textbox', { name: 'Message', exact: true }),
      page.getByRole('button', { name: 'Send', exact: true }),
      page.getByRole('button', { name: 'Interrupt' }),
      page.getByRole('button', { name: 'Stop' }),
      page.locator('.thread-header h2'),
      page.getByRole('link', { name: 'Graph' }),
    ])
      expect(await onScreen(control), await control.evaluate((el) => el.outerHTML.slice(0, 80))).toBe(true);
    expect(await onScreen(approve)).toBe(true);
    // The queue is a scroll away, and whole once there.
    const queue = page.getByRole('region', { name: 'Queue' });
    await queue.getByRole('button', { name: 'Cancel' }).scrollIntoViewIfNeeded();
    expect(await onScreen(queue.getByRole('button', { name: 'Cancel' }))).toBe(true);
    await fits();

    await page.goto(`${rig.baton.url}/#/thread/${threadId}/graph`);
    await page.getByRole('tree').waitFor();
    await fits();
    for (const control of [
      page.getByRole('button', { name: 'Fold all', exact: true }),
      page.locator('.gv-row').first(),
    ])
      expect(await onScreen(control)).toBe(true);

    await page.goto(`${rig.baton.url}/#/thread/${threadId}/charts`);
    await page.locator('.sc-actor').first().waitFor();
    // Checked once the chart is drawn (it is laid out on a worker).
    await page.locator('svg.sc-chart').first().waitFor();
    await fits();
    expect(await onScreen(page.locator('.sc-actor').first())).toBe(true);
    expect(rig.browser.problems).toEqual([]);
    await page.context().close();
  });
});
