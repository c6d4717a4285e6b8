import crypto from 'node:crypto';
import type { Page } from 'puppeteer-core';
import { startHarness, bearer, Harness, HarnessOptions } from './harness';
import { launchBrowser, startLocalServer, LocalServer, TestBrowser } from './browser';
import { ensureDashboardBuilt } from '../../scripts/buildWeb';

/**
 * One dashboard test's world: the app (built when missing or stale, as `npm start` does) served by a
 * harness on a local port named by APP_URL, a headless Chromium page on it, and the page's script
 * errors collected. The helpers below find controls as a person (or a screen reader) does: by their
 * visible label or accessible name.
 */
export interface DashboardSession {
  api: LocalServer;
  h: Harness;
  page: Page;
  /** Script errors and CSP refusals; flows expect none. */
  problems: string[];
  /** Waits until the page's rendered text contains `text` (without case: badges are upper-cased by CSS). */
  waitForText(text: string, timeout?: number): Promise<void>;
  /** The CSS selector of the input whose visible label is `label`, inside `scope` (a CSS selector). */
  inputId(label: string, scope?: string): Promise<string>;
  /** Types `value` at the end of the labelled input (after selecting one line of it). */
  fill(label: string, value: string, scope?: string): Promise<void>;
  /** Replaces the whole value of a labelled input or textarea. */
  replace(label: string, value: string, scope?: string): Promise<void>;
  /** Replaces the document of the code editor (CodeMirror) whose accessible name is `label`. */
  replaceCode(label: string, value: string): Promise<void>;
  /** Opens the Select labelled `label` and picks the visible option whose text starts with `option`. */
  choose(label: string, option: string, scope?: string): Promise<void>;
  /** Clicks the element with this accessible name and role. */
  click(name: string, role?: string): Promise<void>;
  /** Clicks the element `selector` finds, finding it again if a re-render replaced it. */
  clickOn(selector: string, timeout?: number): Promise<void>;
  /** The sentence shown under the labelled input (Mantine links it as `<id>-error`), once there is one. */
  sentenceOn(label: string, scope?: string): Promise<string>;
  /** Everything a person is told about failures: alerts, field errors and toasts. */
  failureTexts(): Promise<string[]>;
  /** Signs a newcomer up and creates a project; answers the project's id and its secret key. */
  signUp(projectName: string): Promise<{ projectId: string; secretKey: string; email: string }>;
  close(): Promise<void>;
}

/**
 * How long a step waits for the page. CI runs two suites at once beside a Temporal server and
 * Chromium on two cores; a screen that settles in a second alone has been seen to take over 20 s
 * there, so waits are generous: a wait only costs time when something is wrong.
 */
const WAIT = 45_000;
// Every browser test in a file importing this: several such waits in a row exceed jest's default.
jest.setTimeout(180_000);

/** A random address under example.test, tagged for reading test output. */
export const testEmail = (tag: string) => `${tag}-${crypto.randomBytes(5).toString('hex')}@example.test`;

export async function openDashboard(
  opts: { env?: Record<string, string>; harness?: Omit<HarnessOptions, 'env'>; viewport?: { width: number; height: number } } = {},
): Promise<DashboardSession> {
  await ensureDashboardBuilt(() => undefined);
  const api = await startLocalServer();
  const h = await startHarness({ ...opts.harness, env: { APP_URL: api.url, ...opts.env } });
  api.handle(h.built.app.callback());
  const tb: TestBrowser = await launchBrowser();
  const page = await tb.browser.newPage();
  await page.setViewport(opts.viewport ?? { width: 1280, height: 900 });
  page.setDefaultTimeout(WAIT);
  const problems: string[] = [];
  page.on('console', (m) => {
    // 4xx answers a flow causes on purpose (GET /users/@me before signing in, a refused condition's 422) are logged as failed loads.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));

  const waitForText = async (text: string, timeout = WAIT) => {
    try {
      await page.waitForFunction((t: string) => (globalThis as any).document.body.innerText.toLowerCase().includes(t), { timeout }, text.toLowerCase());
    } catch {
      const shown = await page.evaluate(() => (globalThis as any).document.body.innerText as string).catch(() => '?');
      throw new Error(`"${text}" not shown at ${page.url()}; the page says:\n${shown}\n${problems.join('\n')}`);
    }
  };

  const inputId = async (label: string, scope = 'body') => {
    const id = await page.waitForFunction(
      (l: string, s: string) => {
        const root = (globalThis as any).document.querySelector(s);
        // Mantine marks required fields with an aria-hidden asterisk inside the label.
        const el = root && [...root.querySelectorAll('label')].find((x: any) => x.textContent!.replace('*', '').trim() === l);
        return el?.htmlFor || null;
      },
      { timeout: WAIT },
      label,
      scope,
    );
    return `[id="${await id.jsonValue()}"]`;
  };

  const fill = async (label: string, value: string, scope?: string) => {
    const selector = await inputId(label, scope);
    await page.click(selector, { clickCount: 3 });
    await page.type(selector, value);
  };

  const selectAllAndType = async (value: string) => {
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.keyboard.type(value);
  };

  const replace = async (label: string, value: string, scope?: string) => {
    const selector = await inputId(label, scope);
    // A triple click selects one line only: select all, then type. A keystroke can land while the
    // page re-renders (a query settling under the form) and be lost, so the field is read back and
    // typed again until it holds the value, as a person would look and correct it.
    for (let attempt = 1; ; attempt++) {
      await page.click(selector);
      await selectAllAndType(value);
      const held = await page
        .waitForFunction((sel: string, v: string) => (globalThis as any).document.querySelector(sel)?.value === v, { timeout: 2_000 }, selector, value)
        .then(() => true)
        .catch(() => false);
      if (held) return;
      if (attempt === 3) {
        const shown = await page.$eval(selector, (el: any) => el.value).catch(() => '?');
        throw new Error(`"${label}" holds ${JSON.stringify(shown)} after typing ${JSON.stringify(value)} three times`);
      }
    }
  };

  const replaceCode = async (label: string, value: string) => {
    const editor = (await page.waitForSelector(`::-p-aria([name="${label}"][role="textbox"])`, { timeout: WAIT }))!;
    if (!(await editor.evaluate((el) => el.classList.contains('cm-content')))) throw new Error(`"${label}" is not the code editor`);
    await editor.click();
    await selectAllAndType(value);
  };

  const choose = async (label: string, option: string, scope?: string) => {
    await page.click(await inputId(label, scope));
    const handle = await page.waitForFunction(
      (o: string) =>
        [...(globalThis as any).document.querySelectorAll('[role="option"]')].find((x: any) => x.offsetParent !== null && x.textContent.trim().startsWith(o)) ??
        null,
      { timeout: WAIT },
      option,
    );
    await (handle as any).click();
    await page.waitForFunction(
      (l: string, s: string, o: string) => {
        const root = (globalThis as any).document.querySelector(s);
        const el = root && [...root.querySelectorAll('label')].find((x: any) => x.textContent!.replace('*', '').trim() === l);
        return el && (globalThis as any).document.getElementById(el.htmlFor)?.value.startsWith(o);
      },
      { timeout: WAIT },
      label,
      scope ?? 'body',
      option,
    );
  };

  const clickOn = async (selector: string, timeout = WAIT) => {
    // A query settling between finding the node and clicking it can re-render it: the handle then
    // points at a detached node, so find it again, as a person's second click would.
    for (let attempt = 1; ; attempt++) {
      const el = (await page.waitForSelector(selector, { timeout }))!;
      try {
        return await el.click();
      } catch (err) {
        if (attempt === 3 || !/detached|not clickable/i.test(String(err))) throw err;
      } finally {
        await el.dispose();
      }
    }
  };

  const click = (name: string, role = 'button') => clickOn(`::-p-aria([name="${name}"][role="${role}"])`);

  const sentenceOn = async (label: string, scope = 'body') => {
    const input = await inputId(label, scope);
    const handle = await page.waitForFunction(
      (sel: string) => {
        const el = (globalThis as any).document.querySelector(sel);
        const err = el && (globalThis as any).document.getElementById(`${el.id}-error`);
        return err?.innerText?.trim() || null;
      },
      { timeout: WAIT },
      input,
    );
    return (await handle.jsonValue()) as string;
  };

  const failureTexts = () =>
    page.$$eval('[role="alert"], [id$="-error"], .mantine-Notification-root', (els) => els.map((e) => (e as unknown as { innerText: string }).innerText));

  const signUp = async (projectName: string) => {
    const email = testEmail('newcomer');
    await page.goto(`${api.url}/app/signup`, { waitUntil: 'load' });
    await replace('Email', email);
    await replace('Password', 'correct horse battery');
    await click('Sign up');
    await replace('Project name', projectName);
    await click('Create project');
    await waitForText('Setup checklist');
    const projectId = /\/app\/p\/([0-9a-f-]{36})/.exec(page.url())![1];
    const secretKey = await page.$eval('[data-testid="full-secret-key"]', (el) => el.textContent!);
    return { projectId, secretKey, email };
  };

  return {
    api,
    h,
    page,
    problems,
    waitForText,
    inputId,
    fill,
    replace,
    replaceCode,
    choose,
    click,
    clickOn,
    sentenceOn,
    failureTexts,
    signUp,
    async close() {
      await tb.close();
      await h.stop();
      await api.close();
    },
  };
}

export { bearer };
