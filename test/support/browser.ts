import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium, installed by `.ci/run` (`BATON_CHROMIUM` names another). */
const executablePath = process.env.BATON_CHROMIUM ?? '/usr/bin/chromium';

export interface BrowserSession {
  browser: Browser;
  /** A fresh page (its own context, so no storage leaks between tests) at the given viewport. */
  page(viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * A real headless chromium. Pages log their console errors and failed requests into
 * `problems`, so a test can assert the page ran clean.
 */
export async function launchBrowser(): Promise<BrowserSession & { problems: string[] }> {
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    // Root in a container has no user namespace for chromium's sandbox.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
  const problems: string[] = [];
  return {
    browser,
    problems,
    async page(viewport = { width: 1280, height: 800 }) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      page.on('console', (m) => {
        // The resource a failed load was of, so a problem names it.
        if (m.type() === 'error')
          problems.push(`console: ${m.text()}${m.location().url ? ` (${m.location().url})` : ''}`);
      });
      return page;
    },
    close: () => browser.close(),
  };
}
