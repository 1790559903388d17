import { describe, expect, it } from 'vitest';
import { useConsoleBaton } from '../support/console-baton.js';
import { openConsole } from './console-page.js';

const rig = useConsoleBaton();

describe('logging in to the console', () => {
  it('the URL `baton serve` prints opens it logged in; the token leaves the address bar and stays out of the logs', async () => {
    expect(rig.baton.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#token=/);
    expect(new URL(rig.baton.consoleUrl).search).toBe('');
    const page = await rig.browser.page();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    await openConsole(page, rig.baton.consoleUrl);
    await page.getByRole('heading', { name: 'Threads' }).waitFor();
    expect(page.url()).toBe(`${rig.baton.url}/#/threads`);
    expect(await page.evaluate("sessionStorage.getItem('baton.token')")).toBe(rig.baton.token);
    // No request carried it (a fragment never leaves the browser), and no log line has it.
    expect(requested.filter((u) => u.includes(rig.baton.token))).toEqual([]);
    expect(rig.baton.stderr()).toContain('baton started');
    expect(rig.baton.stderr()).not.toContain(rig.baton.token);
    // A reload keeps the session (the token is in this tab's sessionStorage).
    await page.reload();
    await page.locator('.connection[data-state="connected"]').waitFor();
    expect(rig.browser.problems).toEqual([]);
  });

  it('a wrong token shows a login error, and the form takes the right one', async () => {
    const page = await rig.browser.page();
    await page.goto(`${rig.baton.url}/#token=not-the-token-0123456789`);
    const error = page.locator('.login-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/refused this token \(unauthorized\)/);
    expect(page.url()).toBe(`${rig.baton.url}/#/threads`);
    await page.getByLabel('Token').fill(rig.baton.token);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('.connection[data-state="connected"]').waitFor();
    await page.getByRole('heading', { name: 'Threads' }).waitFor();
    expect(rig.browser.problems).toEqual([]);
  });
});
