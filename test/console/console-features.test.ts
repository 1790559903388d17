import { describe, expect, it } from 'vitest';
import { useConsoleBaton } from '../support/console-baton.js';
import { agentWait, createThread, openConsole, runStatus, sendMessage, switchProvider } from './console-page.js';

// The richer parts of a thread, on a real `baton serve` (the real Codex and Claude agents, scripted models).

const rig = useConsoleBaton();

describe('the thread view, beyond send and answer', () => {
  it('shows a refusal from the API as a readable message', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await page.getByLabel('Workspace (absolute path)').fill('not/an/absolute/path');
    await page.getByRole('button', { name: 'Create thread' }).click();
    const notice = page.locator('.notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^Create thread: The request is not valid: .*\(invalid_payload\)/);
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(rig.browser.problems).toEqual([]);
  });

  it('queues messages behind a running one: reorder, cancel; Stop holds the queue', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[hang] a long one');
    await page.locator('.active-run').filter({ hasText: 'running' }).waitFor({ timeout: agentWait });
    await page.getByLabel('Dispatch').selectOption('queue_after_active');
    await sendMessage(page, 'queued A');
    await sendMessage(page, 'queued B');
    const queue = page.getByRole('region', { name: 'Queue' });
    const texts = () => queue.locator('.queued-text').allTextContents();
    await queue.locator('li').nth(1).waitFor();
    expect(await texts()).toEqual(['queued A', 'queued B']);
    await queue.locator('li').first().getByRole('button', { name: 'Move down' }).click();
    await queue.locator('li').first().filter({ hasText: 'queued B' }).waitFor();
    expect(await texts()).toEqual(['queued B', 'queued A']);
    await queue.locator('li', { hasText: 'queued B' }).getByRole('button', { name: 'Cancel' }).click();
    await queue.locator('li', { hasText: 'queued B' }).waitFor({ state: 'detached' });
    // Stop: the running one is interrupted and the one still queued waits.
    await page.locator('.active-run').getByRole('button', { name: 'Stop' }).click();
    await runStatus(page, 1, 'interrupted');
    await page.getByText('The queue is held').waitFor();
    expect(await texts()).toEqual(['queued A']);
    expect(rig.browser.problems).toEqual([]);
  });

  it('shows the todo list, and a question answered in place', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[plan] what is next');
    const todo = page.locator('.plan.todo');
    await todo.waitFor({ timeout: agentWait });
    expect(await todo.locator('.step').allTextContents()).toEqual([
      '✓ read the code (completed)',
      '▸ make the change (in progress)',
      '○ run the tests (pending)',
    ]);
    await runStatus(page, 1, 'completed');
    // Codex asks structured questions in plan mode.
    await page.goto(`${rig.baton.url}/#/threads`);
    await page.getByLabel('Interaction').selectOption('plan');
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[ask] which one');
    const question = page.locator('.request.questions.status-pending');
    await question.waitFor({ timeout: agentWait });
    await question.getByRole('radio', { name: /Rust/ }).check();
    await question.getByRole('button', { name: 'Answer' }).click();
    await page.locator('.request.questions.status-resolved').waitFor({ timeout: agentWait });
    await runStatus(page, 1, 'completed');
    expect(rig.browser.problems).toEqual([]);
  });

  it("answers an MCP server's form in place (a choice, several, a number, an optional field left open), and declines one", async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[form] book a stay');
    const form = page.locator('.request.questions.status-pending');
    await form.waitFor({ timeout: agentWait });
    const answer = form.getByRole('button', { name: 'Answer' });
    expect(await answer.isDisabled()).toBe(true);
    await form.getByRole('radio', { name: 'Europe (west)' }).check();
    await form.getByRole('spinbutton', { name: 'Nights' }).fill('3');
    await form.getByRole('checkbox', { name: 'parking' }).check();
    await form.getByRole('checkbox', { name: 'late checkout' }).check();
    expect(await form.locator('legend', { hasText: 'Note' }).textContent()).toContain('(optional)');
    // Region and nights are required; the rest may stay open.
    expect(await answer.isDisabled()).toBe(false);
    await answer.click();
    const done = page.locator('.request.questions.status-resolved');
    await done.waitFor({ timeout: agentWait });
    expect(await done.locator('p.muted', { hasText: 'Answered' }).allTextContents()).toEqual(
      expect.arrayContaining(['Answered: Europe (west)', 'Answered: 3', 'Answered: parking, late checkout']),
    );
    await runStatus(page, 1, 'completed');

    await sendMessage(page, '[form] another');
    const second = page.locator('.request.questions.status-pending');
    await second.waitFor({ timeout: agentWait });
    await second.getByRole('button', { name: 'Decline' }).click();
    await page.locator('.request.questions.status-resolved').nth(1).waitFor({ timeout: agentWait });
    await runStatus(page, 2, 'completed');
    expect(rig.browser.problems).toEqual([]);
  });

  it('shows the link an MCP server asks to open, as an approval', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, '[signin] sign me in');
    const ask = page.locator('.request.approval.status-pending');
    await ask.waitFor({ timeout: agentWait });
    const link = ask.getByRole('link', { name: 'https://booking.example/signin?session=42' });
    expect(await link.getAttribute('href')).toBe('https://booking.example/signin?session=42');
    expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
    await ask.getByRole('button', { name: 'Approve', exact: true }).click();
    await page.locator('.request.approval.status-resolved').waitFor({ timeout: agentWait });
    await runStatus(page, 1, 'completed');
    expect(rig.browser.problems).toEqual([]);
  });

  it('forks from a run into a new thread with the history up to it', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    const source = await createThread(page, rig.baton.workspace(), 'Source');
    await sendMessage(page, 'before the fork');
    await runStatus(page, 1, 'completed');
    await page.getByRole('button', { name: 'Fork from here' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#/thread/') && !url.hash.includes(source));
    const fork = page.locator('.thread-page');
    await fork.locator('.inherited-head').filter({ hasText: source }).waitFor();
    await fork
      .locator('.inherited .message.assistant', { hasText: '(offline scripted model) I received: before the fork' })
      .waitFor();
    expect(await fork.locator('.thread-header .cwd').textContent()).toContain(`fork of ${source}`);
    await sendMessage(page, 'in the fork');
    await runStatus(page, 1, 'completed');
    // Merged back: the parent's next run is told the fork's work, and shows what it was told.
    await page.getByRole('button', { name: 'Merge back into parent' }).click();
    await page.locator('.thread-header .cwd').getByRole('link', { name: source }).click();
    await page.locator(`.thread-page[data-thread-id="${source}"]`).waitFor();
    await sendMessage(page, 'after the merge');
    await runStatus(page, 2, 'completed');
    expect(await page.locator('.handoff summary').textContent()).toMatch(/Baton told the agent runs 1 of thr_/);
    expect(rig.browser.problems).toEqual([]);
  });

  it('switches the provider: the next run is on Claude and shows the handoff it was given', async () => {
    const page = await rig.browser.page();
    await openConsole(page, rig.baton.consoleUrl);
    await createThread(page, rig.baton.workspace());
    await sendMessage(page, 'on codex first');
    await runStatus(page, 1, 'completed');
    await switchProvider(page, 'claude');
    await sendMessage(page, 'now on claude');
    await runStatus(page, 2, 'completed');
    expect(await page.locator('.run-header[data-run-status="completed"]').nth(1).textContent()).toContain('claude');
    const handoff = page.locator('.handoff');
    await handoff.waitFor();
    expect(await handoff.locator('summary').textContent()).toMatch(/Handoff \(full\): Baton told the agent runs 1/);
    expect(rig.browser.problems).toEqual([]);
  });
});
