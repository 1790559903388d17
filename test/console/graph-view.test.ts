import { describe, expect, it } from 'vitest';
import type { ThreadId } from '../../src/domain/ids.js';
import { useConsoleBaton } from '../support/console-baton.js';
import { ok, ThreadClient } from '../support/thread-client.js';
import { agentWait, openConsole, screenshot } from './console-page.js';

// A real `baton serve` child (the real Codex against the scripted model) watched through a
// real chromium: the execution graph of a thread, live, as a tree to fold.

const rig = useConsoleBaton({ client: true });

describe('the execution graph', () => {
  it('shows runs, attempts, nodes and provider threads live, and folds by keyboard and by button', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const { threadId } = ok<{ threadId: ThreadId }>(
      await rig.client.command('thread.create', { cwd: rig.baton.workspace(), title: 'Graph' }),
    );
    await page.goto(`${rig.baton.url}/#/thread/${threadId}/graph`);
    const tree = page.getByRole('tree', { name: `Execution graph of ${threadId}` });
    await tree.waitFor();
    const item = (kind: string, id?: string) =>
      tree.locator(`[role="treeitem"][data-kind="${kind}"]${id ? `[data-id="${id}"]` : ''}`);

    // Both runs arrive while the page watches: the graph stream's events, no reload. The first
    // runs a command the user approves (a tool call and an approval request among its nodes).
    const api = await ThreadClient.open(rig.baton.url, rig.baton.token, threadId);
    const approved = api.sendApproved('[approve] make a file');
    const first = await api.next((e) => (e.type === 'run.queued' ? e.payload.runId : undefined), 'the first run');
    await item('run', first).waitFor({ timeout: agentWait });
    expect(await approved).toBe('completed');
    await item('run', first).and(page.locator('[data-status="completed"]')).waitFor({ timeout: agentWait });
    const second = ok<{ runId: string }>(
      await rig.client.command('thread.message.send', { threadId, text: '[slow] second' }),
    ).runId;
    await item('run', second).and(page.locator('[data-status="running"]')).waitFor({ timeout: agentWait });
    await item('run', second).and(page.locator('[data-status="completed"]')).waitFor({ timeout: agentWait });

    // The newest run is open: its attempt, the attempt's provider thread and nodes, the root turn holding the reply.
    const run2 = item('run', second);
    const attempt = run2.locator('[data-kind="attempt"]');
    await attempt.and(page.locator('[data-status="completed"]')).waitFor();
    await attempt.locator('[data-kind="provider-thread"]').first().waitFor();
    const root = attempt.locator('[data-kind="node"]', { hasText: 'root_turn' });
    await root.and(page.locator('[data-status="completed"]')).waitFor();
    await root.locator('[data-kind="node"]', { hasText: 'assistant_message' }).waitFor();
    await tree
      .locator('[data-key="group:provider-threads"] [data-kind="provider-thread"][data-status="idle"]')
      .waitFor();

    // The older run is folded: its insides are not on the page until it is opened.
    const run1 = item('run', first);
    expect(await run1.getAttribute('aria-expanded')).toBe('false');
    expect(await run1.locator('[data-kind="attempt"]').count()).toBe(0);

    // Keyboard: one tab stop, arrows move, Right opens, Left folds.
    await tree.locator('[role="treeitem"][tabindex="0"]').focus();
    await page.keyboard.press('Home');
    for (let i = 0; i < 10 && (await run1.getAttribute('aria-selected')) !== 'true'; i++)
      await page.keyboard.press('ArrowDown');
    expect(await run1.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight');
    await run1.locator('[data-kind="attempt"]').waitFor();
    expect(await run1.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('ArrowRight');
    expect(await run1.locator('[data-kind="attempt"]').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    expect(await run1.getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    await run1.locator('[data-kind="attempt"]').waitFor({ state: 'detached' });
    await page.keyboard.press('Enter');
    await run1.locator('[data-kind="attempt"]').waitFor();

    // Buttons: fold everything, then open everything.
    await page.getByRole('button', { name: 'Fold all', exact: true }).click();
    await attempt.waitFor({ state: 'detached' });
    expect(await run2.getAttribute('aria-expanded')).toBe('false');
    await page.getByRole('button', { name: 'Unfold all', exact: true }).click();
    await root.locator('[data-kind="node"]', { hasText: 'assistant_message' }).waitFor();
    expect(await tree.locator('[role="treeitem"][aria-expanded="false"]').count()).toBe(0);
    // An item's own row (its text without its children's).
    const row = (kind: string, text: string) =>
      run1.locator(`[data-kind="${kind}"][data-status="completed"] > .gv-row`, { hasText: text });
    expect(await row('node', 'tool_call').textContent()).toContain('offline-made.txt');
    await row('node', 'approval_request').waitFor();
    await screenshot(page, 'graph');
    api.client.close();
    expect(rig.browser.problems).toEqual([]);
  });

  it('fits a phone: the tree wraps instead of scrolling the page sideways', async () => {
    const page = await rig.browser.page({ width: 390, height: 844 });
    await openConsole(page, rig.baton.consoleUrl);
    const { threadId } = ok<{ threadId: ThreadId }>(
      await rig.client.command('thread.create', { cwd: rig.baton.workspace() }),
    );
    ok(await rig.client.command('thread.message.send', { threadId, text: 'hello from a phone' }));
    await page.goto(`${rig.baton.url}/#/thread/${threadId}/graph`);
    await page.locator('[role="treeitem"][data-kind="run"][data-status="completed"]').waitFor({ timeout: agentWait });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(rig.browser.problems).toEqual([]);
  });
});
