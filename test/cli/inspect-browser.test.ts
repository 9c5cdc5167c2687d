// `zot-ext inspect` in a real browser: Debian's chromium driven by playwright-core (no browser
// download), against the CLI over real fixture extensions (TS SDK, Python SDK, plain sh, and a
// flood of frames). One CLI process and one browser for the whole file; the tests run in order on
// one page, as an author would use it. Writes docs/images/inspector.png (the docs show it).
// Without /usr/bin/chromium the file is skipped with a warning, unless ZOT_EXT_REQUIRE_BROWSER=1
// (CI), where it fails.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, ROOT, tempDir } from '../helpers/fixtures.js';
import { CliProcess } from './cli.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM);
const REQUIRED = process.env.ZOT_EXT_REQUIRE_BROWSER === '1';
const SCREENSHOT = path.join(ROOT, 'docs', 'images', 'inspector.png');
const WAIT = 8000;

if (!HAVE_BROWSER) {
  const why = `${CHROMIUM} is missing: the inspector's browser tests ${REQUIRED ? 'FAIL (ZOT_EXT_REQUIRE_BROWSER=1)' : 'are SKIPPED'}; install Debian's chromium (apt-get install chromium) to run them`;
  console.warn(`\n*** ${why} ***\n`);
  if (REQUIRED) it('has a browser to run the inspector tests in', () => expect.fail(why));
}

describe.skipIf(!HAVE_BROWSER)('zot-ext inspect in chromium', () => {
  let cli: CliProcess;
  let browser: Browser;
  let page: Page;
  let url: string;
  let tmp: { dir: string; cleanup: () => void };
  /** Errors of the page: script errors, console errors (a CSP violation, a failed request). */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    tmp = tempDir('zot-ext-inspect-');
    mkdirSync(path.join(tmp.dir, 'project'));
    const extensions = ['inspect/inspect-ts', 'inspect/inspect-py', 'inspect/inspect-sh', 'faults/note-flood'].map(fixture);
    cli = new CliProcess(['inspect', ...extensions, '--home', path.join(tmp.dir, 'home'), '--cwd', path.join(tmp.dir, 'project')], { timeoutMs: 55_000 });
    const launched = chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      timeout: 20_000,
    });
    await cli.waitFor(/^inspector http/m);
    url = /^inspector (\S+)$/m.exec(cli.stdout)![1]!;
    browser = await launched;
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(url);
    await page.locator('[data-testid=connection]', { hasText: 'connected' }).waitFor();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    if (cli !== undefined) {
      // Ctrl+C: the server and every extension stop; the port is closed.
      cli.signal('SIGINT');
      const { code } = await cli.exited;
      expect(code).toBe(0);
      if (url !== undefined) await expectClosed(new URL(url));
    }
    tmp?.cleanup();
  }, 20_000);

  const ext = (name: string) => page.locator(`.card.ext[data-extension="${name}"]`);
  const tab = (name: RegExp) => page.locator('header nav button', { hasText: name }).click();

  it('shows every extension ready, with its pid', async () => {
    for (const name of ['inspect-ts', 'inspect-py', 'inspect-sh', 'note-flood']) {
      await ext(name).locator('[data-testid=state]', { hasText: 'ready' }).waitFor();
      expect(Number(await ext(name).locator('[data-testid=pid]').textContent())).toBeGreaterThan(0);
    }
  });

  it('fills a form generated from the JSON Schema and calls the tool', async () => {
    await tab(/^Tools/);
    await page.locator('.tool-item[data-tool=book_trip]').click();
    const call = page.locator('button[name=call]');
    // Required fields left empty: the call cannot be made.
    expect(await call.isDisabled()).toBe(true);
    await page.locator('.problems li', { hasText: 'destination: required' }).waitFor();
    await page.fill('[name="args.destination"]', 'Lisbon');
    await page.fill('[name="args.nights"]', '3');
    await page.selectOption('[name="args.cabin"]', { label: 'business' });
    await page.check('[name="args.refundable"]');
    await page.click('[name="args.tags.add"]');
    await page.fill('[name="args.tags.0"]', 'sea');
    await page.fill('[name="args.traveller.name"]', 'Ada');
    await page.fill('[name="args.traveller.age"]', '36');
    await call.click();
    const result = page.locator('.call[data-tool=book_trip] [data-testid=result]');
    await result.locator('strong', { hasText: 'Booked' }).waitFor();
    const text = await result.textContent();
    expect(text).toContain('Lisbon for 3 nights');
    expect(text).toContain('cabin: business');
    expect(text).toContain('refundable: true');
    expect(text).toContain('tags: sea');
    expect(text).toContain('traveller: Ada (36)');
    // The image block is rendered as an image.
    expect(await result.locator('img').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await page.locator('.call[data-tool=book_trip] [data-testid=call-status]').textContent()).toBe('ok');
  });

  it('calls a Python tool with raw JSON arguments', async () => {
    await page.locator('.tool-item[data-tool=shout]').click();
    await page.locator('.mode button', { hasText: 'Raw JSON' }).click();
    await page.fill('[name=raw-args]', '{"text": "hello from json"}');
    await page.locator('button[name=call]').click();
    await page.locator('.call[data-tool=shout] [data-testid=result]', { hasText: 'HELLO FROM JSON' }).waitFor();
    await page.locator('.mode button', { hasText: 'Form' }).click();
    expect(await page.inputValue('[name="args.text"]')).toBe('hello from json');
  });

  it('shows a call\'s progress and cancels it', async () => {
    await page.locator('.tool-item[data-tool=count_slowly]').click();
    await page.fill('[name="args.to"]', '10');
    await page.locator('button[name=call]').click();
    const call = page.locator('.call[data-tool=count_slowly]');
    await call.locator('[data-testid=progress]', { hasText: 'counting 1/10' }).waitFor();
    await call.locator('button[name=cancel]').click();
    await call.locator('[data-testid=call-status]', { hasText: 'ABORTED' }).waitFor();
    // The extension saw the cancel (its signal fired): its note shows.
    await page.locator('[data-testid=activity]', { hasText: 'count_slowly cancelled' }).waitFor();
  });

  it('shows the frames of the call in the wire view, request and result linked', async () => {
    await tab(/^Wire/);
    await page.selectOption('[name=wire-extension]', 'inspect-ts');
    await page.selectOption('[name=wire-type]', 'tool_call');
    const request = page.locator('.frame-row.out[data-type=tool_call]', { hasText: 'book_trip' });
    await request.click();
    const answer = page.locator('.frame-detail button.link', { hasText: /its answer \(tool_result\), \d+ ms later/ });
    await answer.click();
    await page.locator('.frame-detail .detail-head', { hasText: 'tool_result from inspect-ts' }).waitFor();
    expect(await page.locator('.frame-detail pre').textContent()).toContain('"type": "image"');
    // Export: the shown frames as NDJSON.
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('button', { hasText: 'Export NDJSON' }).click()]);
    const exported = readFileSync((await download.path())!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { extension: string; direction: string; type: string; frame: { name?: string } });
    expect(exported.length).toBeGreaterThanOrEqual(2);
    expect(exported.every((f) => f.extension === 'inspect-ts' && f.type === 'tool_call' && f.direction === 'out')).toBe(true);
    expect(exported.map((f) => f.frame.name)).toContain('book_trip');
    await page.selectOption('[name=wire-type]', '');
    await page.selectOption('[name=wire-extension]', '');
  });

  it('runs a command that opens a panel and drives it from the keyboard', async () => {
    await tab(/^Commands/);
    await page.locator('form.command[data-command=pick] button[name=run]').click();
    const panel = page.locator('.panel[data-panel=picker]');
    await panel.locator('.panel-lines', { hasText: '> apple' }).waitFor();
    // It has the focus: keys go to the extension.
    await page.keyboard.press('ArrowDown');
    await panel.locator('.panel-lines', { hasText: '> banana' }).waitFor();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=activity]', { hasText: 'picked banana' }).waitFor();
    await panel.waitFor({ state: 'detached' });
  });

  it('runs a tool_call through the intercept chain and shows the block', async () => {
    await tab(/^Intercept/);
    await page.fill('[name=intercept-tool]', 'bash');
    await page.fill('[name=intercept-args]', '{"command": "rm -rf /"}');
    await page.locator('button[name=send-intercept]').click();
    const verdict = page.locator('[data-testid=verdict]').first();
    await verdict.locator('.badge.blocked', { hasText: 'blocked by inspect-py: inspect-py: refused "rm -rf"' }).waitFor();
    const step = verdict.locator('table.trace tbody tr.decision-block td');
    expect(await step.nth(1).textContent()).toBe('inspect-py');
    // The step's own answer, as the wire carried it.
    expect(JSON.parse((await step.nth(5).textContent())!)).toMatchObject({ block: true, reason: 'inspect-py: refused "rm -rf"' });
    // A rewrite: the step's new args, and the args after the chain.
    await page.fill('[name=intercept-args]', '{"command": "ls"}');
    await page.locator('button[name=send-intercept]').click();
    const rewritten = page.locator('[data-testid=verdict]').first();
    await rewritten.locator('.badge.allowed', { hasText: 'allowed, rewritten' }).waitFor();
    expect(JSON.parse((await rewritten.locator('table.trace tbody tr.decision-rewrite td').nth(5).textContent())!)).toMatchObject({ modified_args: { command: 'ls -la' } });
    expect(await rewritten.locator('pre').textContent()).toContain('"command": "ls -la"');
  });

  it('makes the screenshot of the docs', async () => {
    await tab(/^Tools/);
    await page.locator('.tool-item[data-tool=book_trip]').click();
    await page.locator('.call[data-tool=book_trip]').first().waitFor();
    await tab(/^Commands/);
    await page.locator('form.command[data-command=pick] button[name=run]').click();
    await page.locator('.panel[data-panel=picker]').waitFor();
    await page.keyboard.press('ArrowDown');
    await page.locator('.panel[data-panel=picker] .panel-lines', { hasText: '> banana' }).waitFor();
    await tab(/^Tools/);
    await page.fill('[name="args.destination"]', 'Lisbon');
    await page.fill('[name="args.nights"]', '3');
    await page.selectOption('[name="args.cabin"]', { label: 'business' });
    await page.locator('.problems li').first().waitFor({ state: 'detached' });
    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.setViewportSize({ width: 1440, height: 1180 });
    await page.screenshot({ path: SCREENSHOT });
    await page.setViewportSize({ width: 1440, height: 900 });
    // Esc closes the panel as the user.
    await page.locator('.panel[data-panel=picker]').focus();
    await page.keyboard.press('Escape');
    await page.locator('.panel[data-panel=picker]').waitFor({ state: 'detached' });
  });

  it('restarts a crashed extension', async () => {
    const before = Number(await ext('inspect-sh').locator('[data-testid=pid]').textContent());
    await tab(/^Commands/);
    await page.locator('form.command[data-command=crash] button[name=run]').click();
    await ext('inspect-sh').locator('[data-testid=state]', { hasText: /exited|failed/ }).waitFor();
    await page.locator('[data-testid=problem]', { hasText: 'inspect-sh' }).first().waitFor();
    // Its stderr, in the log tail.
    await ext('inspect-sh').locator('button', { hasText: /^Log$/ }).click();
    await ext('inspect-sh').locator('pre.log', { hasText: 'inspect-sh: crashing on purpose' }).waitFor();
    await ext('inspect-sh').locator('button[name=restart]').click();
    await ext('inspect-sh').locator('[data-testid=state]', { hasText: 'ready' }).waitFor();
    const after = Number(await ext('inspect-sh').locator('[data-testid=pid]').textContent());
    expect(after).toBeGreaterThan(0);
    expect(after).not.toBe(before);
  });

  it('stays usable under a flood of frames: a bounded, virtualised list with a dropped counter', async () => {
    await tab(/^Tools/);
    await page.locator('.tool-item[data-tool=flood]').click();
    await page.fill('[name="args.count"]', '4000');
    await page.locator('button[name=call]').click();
    await page.locator('.call[data-tool=flood] [data-testid=result]', { hasText: 'flooded 4000' }).waitFor({ timeout: 15_000 });
    await tab(/^Wire/);
    // 8,000 frames from the flood alone: the page keeps 5,000 and counts the others.
    await page.locator('[data-testid=wire-counts] .dropped').waitFor();
    const counts = await page.locator('[data-testid=wire-counts]').textContent();
    expect(counts).toMatch(/5000 kept/);
    // Only the rows in view are in the DOM.
    expect(await page.locator('.frame-row').count()).toBeLessThan(100);
    // Still answering: a filter applies at once.
    await page.selectOption('[name=wire-extension]', 'inspect-sh');
    await page.locator('[data-testid=wire-counts]', { hasText: /^\d+ shown/ }).waitFor();
    await page.selectOption('[name=wire-extension]', '');
  }, 25_000);

  it('reloads every extension', async () => {
    const before = Number(await ext('inspect-py').locator('[data-testid=pid]').textContent());
    await page.locator('.extensions button', { hasText: /^Reload all$/ }).click();
    // The old process goes away (its pid leaves the card), then every extension is ready again.
    await ext('inspect-py').locator('[data-testid=pid]').filter({ hasNotText: String(before) }).waitFor({ timeout: 15_000 });
    await page.locator('.extensions button:not([disabled])', { hasText: /^Reload all$/ }).waitFor({ timeout: 15_000 });
    for (const name of ['inspect-ts', 'inspect-py', 'inspect-sh', 'note-flood']) await ext(name).locator('[data-testid=state]', { hasText: 'ready' }).waitFor();
    const after = Number(await ext('inspect-py').locator('[data-testid=pid]').textContent());
    expect(after).toBeGreaterThan(0);
    expect(after).not.toBe(before);
    // The tools are back.
    await tab(/^Tools/);
    await page.locator('.tool-item[data-tool=book_trip]').waitFor();
  }, 20_000);

  it('had no script error, CSP violation or failed request on the page', () => {
    expect(pageErrors).toEqual([]);
  });
});

/** Resolves once nothing listens on the URL's port any more. */
function expectClosed(url: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error(`${url.host} still accepts connections after zot-ext inspect exited`));
    });
    socket.once('error', () => resolve());
  });
}
