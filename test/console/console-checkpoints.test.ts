import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBaton, type BatonApp } from '../../src/app/baton-app.js';
import { loadConfig } from '../../src/config.js';
import { ScriptedModelServer } from '../../src/providers/model/scripted-model-server.js';
import { consoleUrl } from '../../src/server/console-route.js';
import { codexModel } from '../providers/codex-scenarios.js';
import { launchBrowser } from '../support/browser.js';
import { ensureConsoleBuilt } from '../support/console-baton.js';
import { responsesUserTexts } from '../support/scripted-models.js';
import { tempDir } from '../support/temp.js';
import { agentWait, createThread, openConsole, runHeader, runStatus, sendMessage } from './console-page.js';

// Checkpoint diffs, subagent rollback, steering a queued message and a free-text answer, in a
// real chromium on a real Baton (the real Codex) whose scripted model each test scripts.

let app: BatonApp;
let model: ScriptedModelServer;
let url: string;
let browser: Awaited<ReturnType<typeof launchBrowser>>;
const folders: (() => void)[] = [];
beforeAll(async () => {
  ensureConsoleBuilt();
  model = await new ScriptedModelServer().start();
  const data = tempDir('baton-console-ckpt-');
  folders.push(data.cleanup);
  app = await startBaton(
    loadConfig(
      {},
      { dataDir: data.dir, port: 0, token: 'console-checkpoints-token-0123456789', codexBaseUrl: model.baseUrl },
    ),
    pino({ level: 'silent' }),
  );
  url = consoleUrl(app.url, app.token);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await model?.stop();
  for (const remove of folders) remove();
});
// A turn a failed test left queued must not answer the next test's first request.
afterEach(() => model.reset());

function workspace(): string {
  const ws = tempDir('baton-console-ckpt-ws-');
  folders.push(ws.cleanup);
  return realpathSync(ws.dir);
}

const dialog = (page: Page) => page.getByRole('dialog');

describe('checkpoints in the console', () => {
  it("opens a run's checkpoint diff file by file: each patch folds and unfolds, by keyboard too; usable at a phone's width", async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'readme.txt'), 'first line\n');
    model.enqueue(
      { kind: 'exec', command: "printf 'hello\\nworld\\n' > notes.txt && printf 'second line\\n' >> readme.txt" },
      { kind: 'text', text: 'Wrote notes.txt.' },
    );
    const page = await browser.page();
    await openConsole(page, url);
    await createThread(page, ws, 'Diffs');
    await sendMessage(page, 'write some notes');
    await runStatus(page, 1, 'completed');

    const checkpoints = page.getByRole('region', { name: 'Checkpoints' });
    const row = checkpoints.locator('.checkpoint-row', { hasText: 'After run 1' });
    await row.filter({ hasText: '2 files +3 −0' }).waitFor();
    await row.getByRole('button', { name: 'Show diff' }).click();
    const diff = dialog(page);
    await diff.getByRole('heading', { name: 'Changes after run 1' }).waitFor();
    const files = diff.getByRole('list', { name: 'Changed files' });
    await files.locator('.diff-file-entry').nth(1).waitFor();
    expect(await files.locator('summary .path').allTextContents()).toEqual(['notes.txt', 'readme.txt']);
    expect(await diff.locator('.diff-summary').textContent()).toContain('2 files changed');
    // A small change opens unfolded: each file's own patch, its lines marked.
    const notes = files.locator('details[data-path="notes.txt"]');
    expect(await notes.locator('summary').textContent()).toMatch(/added\s*notes\.txt\s*\+2 −0/);
    expect(await notes.getByLabel('diff of notes.txt').textContent()).toMatch(
      /new file mode 100644[^]*\+hello\n\+world\n$/,
    );
    expect(await notes.locator('.diff-add').allTextContents()).toEqual(['+hello\n', '+world\n']);
    const readme = files.locator('details[data-path="readme.txt"]');
    expect(await readme.locator('.diff-add').allTextContents()).toEqual(['+second line\n']);
    expect(await readme.locator('.diff-ctx').allTextContents()).toEqual([' first line\n']);

    await diff.getByRole('button', { name: 'Fold all', exact: true }).click();
    await notes.and(page.locator(':not([open])')).waitFor();
    expect(await readme.getAttribute('open')).toBeNull();
    // By keyboard: from the buttons to the first file's name; Enter unfolds it, again folds it.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string | undefined>("document.activeElement?.closest('details')?.dataset.path")).toBe(
      'notes.txt',
    );
    await page.keyboard.press('Enter');
    await notes.and(page.locator('[open]')).waitFor();
    await page.keyboard.press('Enter');
    await notes.and(page.locator(':not([open])')).waitFor();
    // Escape closes it and gives the focus back to the button that opened it.
    await page.keyboard.press('Escape');
    await diff.waitFor({ state: 'detached' });
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('Show diff');

    // The start: the workspace as the thread found it, every file added.
    await checkpoints
      .locator('.checkpoint-row', { hasText: 'Start' })
      .getByRole('button', { name: 'Show diff' })
      .click();
    await diff.getByRole('heading', { name: 'Changes at the start' }).waitFor();
    await diff.locator('.diff-summary', { hasText: '1 file changed (from an empty workspace)' }).waitFor();
    await diff.getByRole('button', { name: 'Close' }).click();
    await diff.waitFor({ state: 'detached' });

    // At a phone's width the dialog fits the screen, and nothing scrolls sideways.
    const narrow = await browser.page({ width: 390, height: 844 });
    await openConsole(narrow, url);
    await narrow.goto(page.url());
    await narrow
      .locator('.checkpoint-row', { hasText: 'After run 1' })
      .getByRole('button', { name: 'Show diff' })
      .click();
    await dialog(narrow).locator('.diff-add', { hasText: '+world' }).waitFor();
    const box = (await dialog(narrow).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await narrow.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(browser.problems).toEqual([]);
  });

  it("a subagent's checkpoint shows its own diff and rolls back to it (rollback.node), saying what became of the subagent's conversation", async () => {
    const ws = workspace();
    model.enqueue(
      ...codexModel([
        {
          kind: 'subagent',
          description: 'writer',
          prompt: 'Write a.txt.',
          steps: [
            { kind: 'add_file', path: 'a.txt', content: 'from the writer\n', callId: 'call_write_a' },
            { kind: 'text', text: 'Wrote a.txt.' },
          ],
          callId: 'call_spawn',
        },
        { kind: 'command', command: "printf 'from the parent\\n' > b.txt", callId: 'call_write_b' },
        { kind: 'text', text: 'Both are written.' },
      ]),
    );
    const page = await browser.page();
    await openConsole(page, url);
    await createThread(page, ws, 'Subagent');
    await sendMessage(page, 'have a writer write a.txt, then write b.txt');
    await runStatus(page, 1, 'completed');
    expect(existsSync(join(ws, 'b.txt'))).toBe(true);

    // In the conversation it is the subagent's, not a run's to roll back to.
    const item = page.locator('.item.checkpoint', { hasText: 'Checkpoint after a subagent · 1 file +1 −0' });
    await item.waitFor();
    expect(await item.getByRole('button').count()).toBe(0);
    const checkpoints = page.getByRole('region', { name: 'Checkpoints' });
    const row = checkpoints.locator('.subagent-checkpoint');
    await row.filter({ hasText: 'Subagent writer in run 1' }).filter({ hasText: '1 file +1 −0' }).waitFor();
    // Its diff is the subagent's work only (the parent's b.txt came later).
    await row.getByRole('button', { name: 'Show diff' }).click();
    await dialog(page).getByRole('heading', { name: 'Changes of subagent writer in run 1' }).waitFor();
    await dialog(page).locator('details[data-path="a.txt"] .diff-add', { hasText: '+from the writer' }).waitFor();
    expect(await dialog(page).locator('summary .path').allTextContents()).toEqual(['a.txt']);
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'detached' });

    await row.getByRole('button', { name: 'Roll back to this turn' }).click();
    await row.getByRole('button', { name: 'Confirm rollback' }).click();
    const note = row.getByRole('status');
    await note.waitFor();
    expect(await note.locator('p').allTextContents()).toEqual([
      'Restored 1 file: b.txt.',
      "The subagent's conversation ends at this turn: nothing in it to take back.",
      // The answer says the parent's own work was among what the rollback took back.
      'The parent run had also changed b.txt: its changes there are undone too.',
    ]);
    expect(readFileSync(join(ws, 'a.txt'), 'utf8')).toBe('from the writer\n');
    expect(existsSync(join(ws, 'b.txt'))).toBe(false);
    expect(browser.problems).toEqual([]);
  });
});

describe('the queue and questions, beyond the core flows', () => {
  it('"Steer now" turns a queued message into a steer of the running run: it leaves the queue and the run goes on with it', async () => {
    const words = Array.from({ length: 80 }, (_, i) => `s${i}`).join(' ');
    model.enqueue({ kind: 'text', text: words, delayMs: 100 }, { kind: 'text', text: 'Going left, as told.' });
    const page = await browser.page();
    await openConsole(page, url);
    await createThread(page, workspace());
    await sendMessage(page, 'walk slowly');
    await page.locator('.message.assistant[aria-busy="true"]', { hasText: 's2' }).waitFor({ timeout: agentWait });
    await page.getByLabel('Dispatch').selectOption('queue_after_active');
    await sendMessage(page, 'go left instead');
    const queue = page.getByRole('region', { name: 'Queue' });
    await queue.locator('li', { hasText: 'go left instead' }).getByRole('button', { name: 'Steer now' }).click();
    await queue.waitFor({ state: 'detached' });
    await runStatus(page, 1, 'completed');
    await page.locator('.message.assistant', { hasText: 'Going left, as told.' }).waitFor();
    await page.locator('.message.user', { hasText: 'go left instead' }).waitFor();
    // No second run: the message went into the first.
    expect(await runHeader(page, 2).count()).toBe(0);
    expect(responsesUserTexts(model.requests.at(-1)!).join('\n')).toContain('go left instead');
    expect(browser.problems).toEqual([]);
  });

  /** A thread in plan mode whose first run proposed a plan with `step`; the model then answers `reply`. */
  async function proposedPlan(step: string, reply: string): Promise<{ page: Page; threadId: string }> {
    model.enqueue(
      { kind: 'text', text: `My plan.\n\n<proposed_plan>\n# The plan\n\n1. ${step}\n</proposed_plan>\n` },
      { kind: 'text', text: reply },
    );
    const page = await browser.page();
    await openConsole(page, url);
    await page.goto(new URL('#/threads', url).href);
    await page.getByLabel('Interaction').selectOption('plan');
    const threadId = await createThread(page, workspace());
    await sendMessage(page, 'make a plan');
    await runStatus(page, 1, 'completed');
    return { page, threadId };
  }

  it('implements a final proposed plan from its card: a new run out of plan mode, told the plan', async () => {
    const { page, threadId } = await proposedPlan('Write hello.txt', 'Implemented as planned.');
    const card = page.locator('.item.plan.proposed', { hasText: 'Write hello.txt' });
    await card.getByRole('button', { name: 'Implement' }).click();
    await runStatus(page, 2, 'completed');
    await page.locator('.message.user', { hasText: 'Implement this plan:' }).waitFor();
    await page.locator('.message.assistant', { hasText: 'Implemented as planned.' }).waitFor();
    expect(responsesUserTexts(model.requests.at(-1)!).join('\n')).toContain('1. Write hello.txt');
    const store = app.runtime.store;
    expect(store.projections.get('threads', threadId)?.interactionMode).toBe('default');
    const runs = store.projections.list('runs', threadId);
    expect(runs.at(-1)?.origin).toEqual({ kind: 'plan_implementation', planId: expect.any(String) });
    expect(browser.problems).toEqual([]);
  });

  it("implements a source's plan in a fork, from the fork's inherited plan card", async () => {
    const { page, threadId: source } = await proposedPlan('Write fork.txt', 'Implemented in the fork.');
    await page.getByRole('button', { name: 'Fork from here' }).click();
    await page.waitForURL((u) => u.hash.startsWith('#/thread/') && !u.hash.includes(source));
    const forkId = new URL(page.url()).hash.split('/').at(-1)!;
    const inherited = page.locator('.inherited .item.plan.proposed', { hasText: 'Write fork.txt' });
    await inherited.getByRole('button', { name: 'Implement' }).click();
    await runStatus(page, 1, 'completed');
    await page.locator('.message.assistant', { hasText: 'Implemented in the fork.' }).waitFor();
    const store = app.runtime.store;
    expect(store.projections.list('runs', forkId).at(-1)?.origin).toMatchObject({ kind: 'plan_implementation' });
    // The source is as it was: still planning, its one run.
    expect(store.projections.get('threads', source)?.interactionMode).toBe('plan');
    expect(store.projections.list('runs', source)).toHaveLength(1);
    expect(browser.problems).toEqual([]);
  });

  it('answers a question with an answer of its own instead of an option', async () => {
    const question = {
      id: 'lang',
      header: 'Language',
      question: 'Which language should I use?',
      options: [
        { label: 'TypeScript', description: 'typed' },
        { label: 'Rust', description: 'fast' },
      ],
    };
    model.enqueue({ kind: 'questions', questions: [question] }, { kind: 'text', text: 'Zig it is.' });
    const page = await browser.page();
    await openConsole(page, url);
    await page.goto(new URL('#/threads', url).href);
    await page.getByLabel('Interaction').selectOption('plan');
    await createThread(page, workspace());
    await sendMessage(page, 'ask me which language');
    const card = page.locator('.request.questions.status-pending');
    await card.waitFor({ timeout: agentWait });
    const answer = card.getByRole('button', { name: 'Answer' });
    expect(await answer.isDisabled()).toBe(true);
    // An option picked, then one's own typed over it: the option lets go.
    await card.getByRole('radio', { name: /Rust/ }).check();
    const own = card.getByRole('textbox', { name: 'Another answer: Which language should I use?' });
    await own.fill('Zig');
    expect(await card.getByRole('radio', { name: /Rust/ }).isChecked()).toBe(false);
    await answer.click();
    const resolved = page.locator('.request.questions.status-resolved');
    await resolved.waitFor({ timeout: agentWait });
    await resolved.getByText('Answered: Zig').waitFor();
    await runStatus(page, 1, 'completed');
    await page.locator('.message.assistant', { hasText: 'Zig it is.' }).waitFor();
    // The agent was given the typed answer.
    expect(JSON.stringify(model.requests.at(-1)!.body.input)).toContain('Zig');
    expect(browser.problems).toEqual([]);
  });
});
