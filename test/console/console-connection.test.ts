import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { BatonClient } from '../../src/client/baton-client.js';
import { launchBrowser } from '../support/browser.js';
import { startConsoleBaton, type ConsoleBaton } from '../support/console-baton.js';
import { tempDir } from '../support/temp.js';
import { agentWait, createThread, openConsole, runStatus, sendMessage } from './console-page.js';

// Baton going away under an open console and coming back (a new process on the same port
// and data dir): the header says so within seconds, a message sent meanwhile is refused in
// words (and kept in the box, not sent later behind the person's back), and the console
// carries on once Baton is back.

const data = tempDir('baton-console-restart-');
const workspace = tempDir('baton-console-restart-ws-');
const fresh = tempDir('baton-console-fresh-');
const third = tempDir('baton-console-third-');
const longer = tempDir('baton-console-longer-');
let baton: ConsoleBaton;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  baton = await startConsoleBaton({ dataDir: data.dir });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await baton?.stop();
  workspace.cleanup();
  data.cleanup();
  fresh.cleanup();
  third.cleanup();
  longer.cleanup();
});

/** The sequence a Baton's event log ends at (a subscription's snapshot is taken there). */
async function logEnd(of: ConsoleBaton): Promise<number> {
  const client = await BatonClient.connect(of.url, of.token);
  try {
    const { subscription, snapshotSequence } = await client.subscribe({ stream: 'threads' }, () => undefined);
    await subscription.close();
    return snapshotSequence;
  } finally {
    client.close();
  }
}

/**
 * What a page says while these tests have taken Baton away on purpose: its socket's
 * reconnects refused, and any load from the stopped server refused (an earlier test's page,
 * still open, meets every later restart too). Anything else is a problem.
 */
const whileBatonIsAway = /WebSocket connection .* failed|Failed to load resource: net::ERR_CONNECTION_REFUSED/;

/** Creates a thread titled `title` in `page` and waits for it in the thread list; answers the list's rows. */
async function listedThread(page: Page, title: string): Promise<Locator> {
  await createThread(page, workspace.dir, title);
  await page.goto(`${baton.url}/#/threads`);
  const rows = page.locator('.thread-row');
  await rows.filter({ hasText: title }).waitFor();
  return rows;
}

describe('the console when Baton stops and starts again', () => {
  it('shows offline, refuses a message in words, and reconnects to the new Baton', async () => {
    const page = await browser.page();
    await openConsole(page, baton.consoleUrl);
    await createThread(page, workspace.dir, 'Across a restart');
    await sendMessage(page, 'before the restart');
    await runStatus(page, 1, 'completed');
    const connection = page.locator('.connection');
    const port = Number(new URL(baton.url).port);

    await baton.stop();
    await connection
      .and(page.locator('[data-state="reconnecting"], [data-state="offline"]'))
      .waitFor({ timeout: 5_000 });
    await connection.and(page.locator('[data-state="offline"]')).waitFor({ timeout: 10_000 });
    expect(await connection.textContent()).toMatch(/Offline: Baton is not reachable, retrying/);

    const message = page.getByRole('textbox', { name: 'Message', exact: true });
    await sendMessage(page, 'while Baton is away');
    const notice = page.locator('.notice').last();
    await notice.waitFor({ timeout: 5_000 });
    expect(await notice.textContent()).toMatch(/^Send: Baton is not connected, so nothing was sent/);
    expect(await message.inputValue()).toBe('while Baton is away');

    baton = await startConsoleBaton({ dataDir: data.dir, port });
    await connection.and(page.locator('[data-state="connected"]')).waitFor({ timeout: 20_000 });
    // The refused message was never sent: the thread still has one run until it is sent again.
    expect(await page.locator('.message.user').count()).toBe(1);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await runStatus(page, 2, 'completed');
    await page
      .locator('.message.assistant', { hasText: '(offline scripted model) I received: while Baton is away' })
      .waitFor({ timeout: agentWait });
    expect(await page.locator('.message.user').allTextContents()).toEqual([
      'Youbefore the restart',
      'Youwhile Baton is away',
    ]);
    expect(browser.problems.filter((p) => !whileBatonIsAway.test(p))).toEqual([]);
  });

  it('a Baton whose log is not the one the view was made from (a fresh data dir, the same token): the view starts afresh, live', async () => {
    const page = await browser.page();
    await openConsole(page, baton.consoleUrl);
    const rows = await listedThread(page, 'Before the other Baton');
    const port = Number(new URL(baton.url).port);
    await baton.stop();
    // Another data dir, its log empty: the console's cursor is past its end, so no resume can be made.
    copyFileSync(join(data.dir, 'token'), join(fresh.dir, 'token'));
    baton = await startConsoleBaton({ dataDir: fresh.dir, port });
    await page.locator('.connection[data-state="connected"]').waitFor({ timeout: 20_000 });
    await rows.filter({ hasText: 'Before the other Baton' }).waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByText('No threads yet: create one.').waitFor();
    await listedThread(page, 'On the fresh Baton');

    // The same from a reload: the view it kept (and its cursor) is of a log this Baton does not have.
    await baton.stop();
    copyFileSync(join(data.dir, 'token'), join(third.dir, 'token'));
    baton = await startConsoleBaton({ dataDir: third.dir, port });
    await page.reload();
    await page.locator('.connection[data-state="connected"]').waitFor({ timeout: 20_000 });
    await rows.filter({ hasText: 'On the fresh Baton' }).waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByText('No threads yet: create one.').waitFor();
    expect(browser.problems.filter((p) => !whileBatonIsAway.test(p))).toEqual([]);
  });

  it("a Baton whose log has passed the view's cursor, met by a view kept in the tab: the cursor names its log, so the view starts afresh", async () => {
    const page = await browser.page();
    await openConsole(page, baton.consoleUrl);
    const rows = await listedThread(page, 'Before the longer log');
    // Another data dir whose log is already longer than the whole of this one's.
    copyFileSync(join(data.dir, 'token'), join(longer.dir, 'token'));
    const lastOfThisLog = await logEnd(baton);
    const other = await startConsoleBaton({ dataDir: longer.dir });
    const client = await BatonClient.connect(other.url, other.token);
    let created = 0;
    while ((await logEnd(other)) <= lastOfThisLog + 1) {
      const ack = await client.command('thread.create', { cwd: workspace.dir, title: `Elsewhere ${++created}` });
      expect(ack.ok).toBe(true);
    }
    client.close();
    await other.stop();
    // The page goes (its view and cursor kept in the tab) before the other Baton takes the port.
    await page.goto('about:blank');
    const port = Number(new URL(baton.url).port);
    await baton.stop();
    baton = await startConsoleBaton({ dataDir: longer.dir, port });
    await page.goto(`${baton.url}/#/threads`);
    await page.locator('.connection[data-state="connected"]').waitFor({ timeout: 20_000 });
    await rows.filter({ hasText: 'Before the longer log' }).waitFor({ state: 'detached', timeout: 10_000 });
    await rows.filter({ hasText: 'Elsewhere 1' }).waitFor();
    expect(await rows.count()).toBe(created);
    expect(browser.problems.filter((p) => !whileBatonIsAway.test(p))).toEqual([]);
  });
});
