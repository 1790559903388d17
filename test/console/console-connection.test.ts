import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
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
});

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
      .locator('.message.assistant', { hasText: 'Reply to: while Baton is away' })
      .waitFor({ timeout: agentWait });
    expect(await page.locator('.message.user').allTextContents()).toEqual([
      'Youbefore the restart',
      'Youwhile Baton is away',
    ]);
    expect(browser.problems.filter((p) => !/WebSocket connection .* failed/.test(p))).toEqual([]);
  });

  it('a Baton whose log is not the one the view was made from (a fresh data dir, the same token): the view starts afresh, live', async () => {
    const page = await browser.page();
    await openConsole(page, baton.consoleUrl);
    await createThread(page, workspace.dir, 'Before the other Baton');
    await page.goto(`${baton.url}/#/threads`);
    const rows = page.locator('.thread-row');
    await rows.filter({ hasText: 'Before the other Baton' }).waitFor();
    const port = Number(new URL(baton.url).port);
    await baton.stop();
    // Another data dir, its log empty: the console's cursor is past its end, so no resume can be made.
    copyFileSync(join(data.dir, 'token'), join(fresh.dir, 'token'));
    baton = await startConsoleBaton({ dataDir: fresh.dir, port });
    await page.locator('.connection[data-state="connected"]').waitFor({ timeout: 20_000 });
    await rows.filter({ hasText: 'Before the other Baton' }).waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByText('No threads yet: create one.').waitFor();
    await createThread(page, workspace.dir, 'On the fresh Baton');
    await page.goto(`${baton.url}/#/threads`);
    await rows.filter({ hasText: 'On the fresh Baton' }).waitFor();

    // The same from a reload: the view it kept (and its cursor) is of a log this Baton does not have.
    await baton.stop();
    copyFileSync(join(data.dir, 'token'), join(third.dir, 'token'));
    baton = await startConsoleBaton({ dataDir: third.dir, port });
    await page.reload();
    await page.locator('.connection[data-state="connected"]').waitFor({ timeout: 20_000 });
    await rows.filter({ hasText: 'On the fresh Baton' }).waitFor({ state: 'detached', timeout: 10_000 });
    await page.getByText('No threads yet: create one.').waitFor();
    expect(browser.problems.filter((p) => !/WebSocket connection .* failed/.test(p))).toEqual([]);
  });
});
