import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { bearer, Harness } from '../helpers/harness';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';

/**
 * The Import CSV dialog's mapping step (web/src/components/contacts/ImportMapping.tsx) in a real
 * headless Chromium against the real app and worker: a column renamed, one skipped, one retyped; the
 * misfit reported with its row and column; the typed numbers filtered with "is greater than"; and the
 * contacts list searched by a field's value.
 */

let s: DashboardSession;
let h: Harness;
let page: Page;

beforeAll(async () => {
  s = await openDashboard({ harness: { worker: true } });
  ({ h, page } = s);
}, 300_000);
afterAll(async () => s?.close());

const AXE = fs.readFileSync(path.join(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it stands (see accessibility.test.ts). */
async function violations(): Promise<string[]> {
  if (!(await page.evaluate(() => !!(globalThis as any).axe))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
}

const byName = async (name: string) => (await page.waitForSelector(`::-p-aria([name="${name}"])`, { timeout: 45_000 }))!;

/** Opens the column's type select and picks the visible option `option` (closed selects keep theirs in the DOM). */
async function retype(column: string, option: string) {
  await (await byName(`Type of column ${column}`)).click();
  const handle = await page.waitForFunction(
    (o: string) =>
      [...(globalThis as any).document.querySelectorAll('[role="option"]')].find((x: any) => x.offsetParent !== null && x.textContent.trim() === o) ?? null,
    { timeout: 45_000 },
    option,
  );
  await (handle as any).click();
  await page.waitForFunction(
    (c: string, o: string) => (globalThis as any).document.querySelector(`[aria-label="Type of column ${c}"]`)?.value === o,
    { timeout: 45_000 },
    column,
    option,
  );
}

/** `DASHBOARD_SCREENSHOTS=1` also photographs the mapping step into docs/img. */
async function photograph(name: string) {
  if (process.env.DASHBOARD_SCREENSHOTS) await page.screenshot({ path: `docs/img/dashboard-${name}.png` });
}

/** The emails in the table labelled `label`, sorted, once they are exactly `expected`. */
async function tableEmails(label: string, expected: string[]) {
  const want = [...expected].sort();
  await page
    .waitForFunction(
      (l: string, w: string) => {
        const rows = [...(globalThis as any).document.querySelectorAll(`table[aria-label="${l}"] tbody tr`)];
        return JSON.stringify(rows.map((r: any) => r.querySelector('a')?.textContent ?? '').sort()) === w;
      },
      { timeout: 45_000 },
      label,
      JSON.stringify(want),
    )
    .catch(async () => {
      const shown = await page.$eval(`table[aria-label="${label}"]`, (t) => (t as any).innerText).catch(() => '(no table)');
      throw new Error(`${label} does not list exactly ${want.join(', ')}:\n${shown}`);
    });
}

it('maps and types columns on import, then filters score > 50 and searches by a field value', async () => {
  const { secretKey } = await s.signUp('Import project');
  const [ann, bob, cy, dee, eve, fay] = ['ann', 'bob', 'cy', 'dee', 'eve', 'fay'].map(testEmail);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-import-')), 'people.csv');
  // Score has one misfit, so it is guessed as text and retyped to Number; Code looks like numbers
  // but is kept as text; Notes is skipped; "E-mail" is renamed to email and Score to score.
  fs.writeFileSync(
    file,
    [
      'E-mail,Score,Code,Notes,Plan',
      `${ann},72,1001,call her,gold`,
      `${bob},12,1002,,silver`,
      `${cy},99,1003,x,gold`,
      `${dee},50,1004,,bronze`,
      `${eve},51,1005,,silver`,
      `${fay},abc,1006,,gold`,
    ].join('\n'),
  );

  await s.click('Contacts', 'link');
  await s.click('Import CSV');
  const input = (await page.waitForSelector('input[type="file"]'))!;
  await (input as any).uploadFile(file);
  await page.waitForSelector('table[aria-label="Column mapping"]', { timeout: 45_000 });
  // The server's guesses, shown in the mapping step with the first values.
  const typeOf = (column: string) => page.$eval(`::-p-aria([name="Type of column ${column}"])`, (el) => (el as any).value);
  expect(await typeOf('Score')).toBe('Text');
  expect(await typeOf('Code')).toBe('Number');
  expect(await page.$eval('table[aria-label="Column mapping"]', (t) => (t as any).innerText)).toContain('call her');
  // "E-mail" is no email column yet: the import waits for one.
  await s.waitForText('One column must be imported as "email".');

  await (await byName('Import column E-mail as')).click({ count: 3 });
  await page.keyboard.type('email');
  await (await byName('Import column Score as')).click({ count: 3 });
  await page.keyboard.type('score');
  await (await byName('Skip column Notes')).click();
  await retype('Score', 'Number');
  await retype('Code', 'Text');
  await page.waitForFunction(() => !(globalThis as any).document.body.innerText.includes('must be imported as'), { timeout: 45_000 });
  await photograph('contact-import-mapping');
  expect(await violations()).toEqual([]);

  await s.click('Import');
  await s.waitForText('5 imported, 1 failed.', 60_000);
  await s.waitForText('Row 7, column Score: "abc" is not a number');
  await s.click('Close');

  // Stored typed: a number, a text code, no Notes.
  const listed = (await h.http.get('/contacts').query({ search: ann }).set(bearer(secretKey))).body.data[0];
  expect(listed.data).toEqual({ score: 72, Code: '1001', Plan: 'gold' });

  // score > 50 in the filter builder: exactly the three contacts above 50 (50 itself is not).
  await s.click('Segments', 'link');
  await s.click('New segment', 'link');
  await s.replace('Name', 'High scores');
  const first = '[data-filter-path="groups.0.filters.0"]';
  await s.choose('Field', 'data.score', first);
  await s.choose('Operator', 'is greater than', first);
  await s.replace('Value', '50', first);
  await page.waitForSelector('[data-testid="matching-count"][data-count="3"][data-current="yes"]', { timeout: 45_000 });
  await s.click('Create segment');
  await tableEmails('Segment members', [ann, cy, eve]);

  // Search matches a field's value: "gold" is the plan of ann, cy (fay's row failed).
  await s.click('Contacts', 'link');
  await page.waitForSelector('input[placeholder="Email, name or any field value…"]', { timeout: 45_000 });
  await s.replace('Search', 'GOLD');
  await tableEmails('Contacts', [ann, cy]);
  expect(s.problems).toEqual([]);
}, 240_000);
