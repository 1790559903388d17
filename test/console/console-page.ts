import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page, WebSocketRoute } from 'playwright-core';

/** How long a wait for the agent may take on this 2-core machine. */
export const agentWait = 45_000;

/** Opens the printed console URL and waits until the console is connected. */
export async function openConsole(page: Page, consoleUrl: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.locator('.connection[data-state="connected"]').waitFor();
}

/** Creates a thread on `cwd` through the form and waits for its page; returns its id. */
export async function createThread(page: Page, cwd: string, title?: string): Promise<string> {
  await page.goto(new URL('#/threads', page.url()).href);
  await page.getByLabel('Workspace (absolute path)').fill(cwd);
  if (title) await page.getByLabel('Title', { exact: true }).fill(title);
  await page.getByRole('button', { name: 'Create thread' }).click();
  const view = page.locator('.thread-page');
  await view.waitFor();
  return (await view.getAttribute('data-thread-id'))!;
}

/** Switches the open thread to `provider` from its next run, and waits until the switch is taken. */
export async function switchProvider(page: Page, provider: string): Promise<void> {
  await page.locator('.thread-header').getByLabel('Provider').selectOption(provider);
  const button = page.getByRole('button', { name: `Switch to ${provider}` });
  await button.click();
  await page.locator('.thread-header .settings').filter({ hasNot: button }).waitFor();
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

/**
 * Passes the console's Socket.IO frames through, except that, once `hold()` is called, the
 * server's acks of commands wait until `release()`. `held` settles when one is waiting.
 */
export async function holdCommandAcks(page: Page) {
  let holding = false;
  const waiting: Array<() => void> = [];
  let heldOne!: () => void;
  const held = new Promise<void>((resolve) => (heldOne = resolve));
  await page.routeWebSocket(/\/socket\.io\//, (ws: WebSocketRoute) => {
    const server = ws.connectToServer();
    ws.onMessage((frame) => server.send(frame));
    server.onMessage((frame) => {
      // An ack is Engine.IO's message (4) carrying Socket.IO's ACK (3); a command's names its commandId.
      if (holding && typeof frame === 'string' && frame.startsWith('43') && frame.includes('"commandId"')) {
        waiting.push(() => ws.send(frame));
        heldOne();
      } else ws.send(frame);
    });
  });
  return {
    held,
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const deliver of waiting.splice(0)) deliver();
    },
  };
}

/** The header of the run with this ordinal. */
export const runHeader = (page: Page, ordinal: number) =>
  page.locator('.run-header').filter({ has: page.locator('strong', { hasText: new RegExp(`^Run ${ordinal}$`) }) });

/** Waits until run `ordinal` shows `status`. */
export async function runStatus(page: Page, ordinal: number, status: string): Promise<void> {
  await runHeader(page, ordinal)
    .and(page.locator(`[data-run-status="${status}"]`))
    .waitFor({ timeout: agentWait });
}

/**
 * A screenshot for the README, written to `docs/console-NAME.png` only when
 * `BATON_SCREENSHOTS=1` (a normal run leaves the tree as it was).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.BATON_SCREENSHOTS !== '1') return;
  const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
  mkdirSync(docs, { recursive: true });
  await page.screenshot({ path: `${docs}console-${name}.png` });
}
