import { describe, expect, it } from 'vitest';
import { useConsoleBaton } from '../support/console-baton.js';
import { openConsole } from './console-page.js';

// What the API refuses, or a URL names nothing, is said in a sentence with a way back: never
// a blank page (a throw while rendering used to unmount the whole console) or a JSON dump.

const rig = useConsoleBaton();

describe('the console on a URL that names nothing', () => {
  it.each([
    ['#/thread/thr_nope', /^Baton has no thread thr_nope\.$/],
    ['#/thread/thr_nope/graph', /^Baton has no thread thr_nope\.$/],
    ['#/thread/thr_nope/charts', /^Baton has no thread thr_nope\.$/],
    ['#/thread/not%20an%20id', /^“not an id” is not a thread id: ids are letters, digits and _ \. : -/],
    ['#/thread/x!y/graph', /^“x!y” is not a thread id/],
    ['#/thread/x!y/charts', /^“x!y” is not a thread id/],
    ['#/thread/%E0%A4%A', /^Nothing at #\/thread\/%E0%A4%A\./],
    ['#/nowhere', /^Nothing at #\/nowhere\./],
  ])('%s says so, readably, and the console still works', async (hash, said) => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await page.goto(`${rig.baton.url}/${hash}`);
    const alert = page.locator('main [role="alert"]');
    await alert.waitFor();
    const text = (await alert.textContent())!.trim();
    expect(text).toMatch(said);
    expect(text).not.toMatch(/[{}[\]]/);
    // The way back works: the console is alive, not unmounted by the bad page.
    await page.getByRole('link', { name: 'Back to the threads' }).click();
    await page.getByRole('heading', { name: 'Threads' }).waitFor();
    expect(await page.locator('.connection').getAttribute('data-state')).toBe('connected');
    expect(rig.browser.problems).toEqual([]);
    await page.context().close();
  });
});
