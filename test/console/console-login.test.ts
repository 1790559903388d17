import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { startConsoleBaton, type ConsoleBaton } from '../support/console-baton.js';
import { openConsole } from './console-page.js';

let baton: ConsoleBaton;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  baton = await startConsoleBaton();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await baton?.stop();
});

describe('logging in to the console', () => {
  it('the URL `baton serve` prints opens it logged in; the token leaves the address bar and stays out of the logs', async () => {
    expect(baton.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(new URL(baton.consoleUrl).search).toBe('');
    const page = await browser.page();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await openConsole(page, baton.consoleUrl);
    await page.getByRole('heading', { name: 'Threads' }).waitFor();
    expect(page.url()).toBe(`${baton.url}/#/threads`);
    expect(await page.evaluate("sessionStorage.getItem('baton.token')")).toBe(baton.token);
    // No request carried it (a fragment never leaves the browser), and no log line has it.
    expect(requested.filter((u) => u.includes(baton.token))).toEqual([]);
    expect(baton.stderr()).toContain('baton started');
    expect(baton.stderr()).not.toContain(baton.token);
    // A reload keeps the session (the token is in this tab's sessionStorage).
    await page.reload();
    await page.locator('.connection[data-state="connected"]').waitFor();
    expect(browser.problems).toEqual([]);
  });

  it('a wrong token shows a login error, and the form takes the right one', async () => {
    const page = await browser.page();
    await page.goto(`${baton.url}/#token=not-the-token-0123456789`);
    const error = page.locator('.login-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/refused this token \(unauthorized\)/);
    expect(page.url()).toBe(`${baton.url}/#/threads`);
    await page.getByLabel('Token').fill(baton.token);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('.connection[data-state="connected"]').waitFor();
    await page.getByRole('heading', { name: 'Threads' }).waitFor();
    expect(browser.problems).toEqual([]);
  });
});
