import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { openDashboard, DashboardSession, testEmail } from '../helpers/dashboardSession';

/**
 * The dashboard's languages (docs/dashboard.md "Languages"): a browser that prefers German reads
 * German before anyone chooses; "Language" → Français on the account page turns the frame, the
 * screens and their dates (French months, with the zone) French, on <html lang> too; axe stays clean;
 * and the API's refusal of a bad value reads in French on the field.
 */

let s: DashboardSession;
let page: Page;

const AXE = fs.readFileSync(path.join(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

async function violations(p: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the dashboard's CSP refuses an injected <script>.
  if (!(await p.evaluate(() => !!(globalThis as any).axe))) await p.evaluate(AXE);
  return p.evaluate(async () => {
    const result = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
}

const text = (p: Page, wanted: string) =>
  p.waitForFunction((t: string) => (globalThis as any).document.body.innerText.toLowerCase().includes(t), { timeout: 45_000 }, wanted.toLowerCase());
const htmlLang = (p: Page) => p.evaluate(() => (globalThis as any).document.documentElement.lang as string);
/** Picks an option of the "Language" select (s.choose reads the label back, which changes language with it). */
async function pickLanguage(label: string, option: string) {
  await page.click(await s.inputId(label));
  const handle = await page.waitForFunction(
    (o: string) =>
      [...(globalThis as any).document.querySelectorAll('[role="option"]')].find((x: any) => x.offsetParent !== null && x.textContent.trim() === o) ?? null,
    { timeout: 45_000 },
    option,
  );
  await (handle as any).click();
}

const sentenceOn = (label: string, scope?: string) => s.sentenceOn(label, scope);
const failureTexts = async () => (await s.failureTexts()).join('\n');

/** Transitions end before axe reads colours. */
const settle = () => new Promise((r) => setTimeout(r, 400));

beforeAll(async () => {
  s = await openDashboard();
  ({ page } = s);
}, 300_000);
afterAll(async () => s?.close());

it('a browser that prefers German reads the dashboard in German before any setting', async () => {
  // A browser of its own (no cookie of the other test), whose languages are German's.
  const context = await page.browser().createBrowserContext();
  try {
    const de = await context.newPage();
    await de.setViewport({ width: 1280, height: 900 });
    await de.setExtraHTTPHeaders({ 'Accept-Language': 'de-DE,de;q=0.9' });
    await de.evaluateOnNewDocument(() => {
      const nav = (globalThis as any).navigator;
      Object.defineProperty(nav, 'languages', { get: () => ['de-DE', 'de'] });
      Object.defineProperty(nav, 'language', { get: () => 'de-DE' });
    });
    await de.goto(`${s.api.url}/app/signup`, { waitUntil: 'load' });
    await text(de, 'Erstellen Sie Ihr Konto');
    expect(await htmlLang(de)).toBe('de');
    await de.waitForFunction(() => (globalThis as any).document.title === 'Registrieren');
    await settle();
    expect(await violations(de)).toEqual([]);

    // Signed in with no setting of their own: still the browser's German.
    await de.type('input[type="email"]', testEmail('deutsch'));
    await de.type('input[type="password"]', 'correct horse battery');
    await (await de.waitForSelector('::-p-aria([name="Registrieren"][role="button"])'))!.click();
    await de.waitForFunction(() => (globalThis as any).location.pathname === '/app/new-project', { timeout: 45_000 });
    const me = (await de.evaluate(() => fetch('/users/@me').then((r) => r.json()))) as { locale: string | null };
    expect(me.locale).toBeNull();
    await de.goto(`${s.api.url}/app/account`, { waitUntil: 'load' });
    await text(de, 'Ihr Konto');
    await text(de, 'Sitzungen');
    expect(await htmlLang(de)).toBe('de');
  } finally {
    await context.close();
  }
});

it('"Language" → Français on the account page: the frame, a screen and a date (with its zone) in French; axe clean', async () => {
  // The zone a date names is the reader's: a browser in Berlin.
  await page.emulateTimezone('Europe/Berlin');
  const { projectId, email, secretKey } = await s.signUp('Projet de langue');
  await text(page, 'Set up your project');
  expect(await htmlLang(page)).toBe('en');

  await page.goto(`${s.api.url}/app/account`, { waitUntil: 'load' });
  await pickLanguage('Language', 'Français');
  await text(page, 'Votre compte');
  await text(page, 'Se déconnecter partout');
  expect(await htmlLang(page)).toBe('fr');
  // Mantine's own eye button of a password input is named in French too (the theme's default).
  await page.waitForSelector('button[aria-label="Afficher ou masquer le mot de passe"]', { timeout: 45_000 });
  expect(await page.$('[aria-label="Toggle password visibility"]')).toBeNull();
  expect((await s.h.deps.knex('users').where({ email }).first()).locale).toBe('fr');

  // The sessions' "Signed in" column: French day and month ("29 nov., 09:30 Europe/Berlin").
  const months = Array.from({ length: 12 }, (_, m) => new Intl.DateTimeFormat('fr-FR', { month: 'short' }).format(new Date(Date.UTC(2026, m, 15))));
  const cells = await page.$$eval('table[aria-label="Sessions"] td', (tds) => tds.map((td) => td.textContent ?? ''));
  const dated = cells.filter((c) => c.includes('Europe/Berlin'));
  expect(dated.length).toBeGreaterThan(0);
  for (const cell of dated) {
    expect(cell).toMatch(/^\d{1,2} \S+(?: \d{4})?, \d{2}:\d{2} Europe\/Berlin$/);
    expect(months.some((m) => cell.includes(` ${m}`))).toBe(true);
  }
  await settle();
  expect(await violations(page)).toEqual([]);
  if (process.env.DASHBOARD_SCREENSHOTS) await page.screenshot({ path: 'docs/img/dashboard-language.png', fullPage: true });

  // The frame and a screen, after a reload too: the setting is the account's, not this tab's.
  await page.goto(`${s.api.url}/app/p/${projectId}`, { waitUntil: 'load' });
  await text(page, 'Configurez votre projet');
  await text(page, 'Paramètres');
  await text(page, 'Se déconnecter');
  await page.waitForFunction(() => (globalThis as any).document.title === 'Configuration · Projet de langue', { timeout: 45_000 });
  expect(await htmlLang(page)).toBe('fr');
  await settle();
  expect(await violations(page)).toEqual([]);

  // The audit log in words: the line, the action, the target's kind and the details' labels, no codes.
  await page.goto(`${s.api.url}/app/p/${projectId}/audit`, { waitUntil: 'load' });
  await text(page, 'Projet Projet de langue créé');
  const created = await page.$eval('table[aria-label="Journal d’audit"] tbody tr:last-child', (tr) => (tr as any).innerText.replace(/\s+/g, ' ') as string);
  expect(created).toMatch(/Projet Projet de langue créé A créé le projet Projet de langue Projet \S+ Nom : Projet de langue Afficher les détails bruts/);
  expect(created).not.toMatch(/project\.create|"name"/);
  await settle();
  expect(await violations(page)).toEqual([]);

  // "Start from a flow": the starters' names, descriptions and steps in French.
  await page.goto(`${s.api.url}/app/p/${projectId}/workflows`, { waitUntil: 'load' });
  await s.click('Partir d’un scénario');
  await text(page, 'Panier abandonné');
  await text(page, 'Attendre l’achat → Rappel');
  await settle();
  expect(await violations(page)).toEqual([]);

  // A refusal reads French too: the dashboard asks the API for its language (Accept-Language), and the
  // field shows the API's French sentence, a schema's own (the domain) as well as a composed one (the name).
  await page.goto(`${s.api.url}/app/p/${projectId}/domains`, { waitUntil: 'load' });
  await text(page, 'Ajouter le domaine');
  await s.replace('Domaine', 'https://example.com/mail');
  await s.click('Ajouter le domaine');
  expect(await sentenceOn('Domaine')).toBe('Saisissez un domaine comme example.com — sans https://, chemin, port ni @');
  await page.goto(`${s.api.url}/app/p/${projectId}/settings`, { waitUntil: 'load' });
  await s.replace('Nom du projet', '   ');
  await s.click('Renommer');
  expect(await sentenceOn('Nom du projet')).toBe('Le champ « Nom » est obligatoire');
  const told = await failureTexts();
  for (const english of ['Enter a domain', 'is required', 'must be', 'Request validation failed'])
    expect([english, told.includes(english)]).toEqual([english, false]);

  // The workflow editor: the server's built-in step types, its groups, the trigger and the canvas's
  // own controls in French (web/src/i18n/fr/steps.ts).
  const flow = await s.h.http
    .post('/workflows')
    .set({ authorization: `Bearer ${secretKey}` })
    .send({ name: 'Accueil', eventName: 'inscription' });
  expect(flow.status).toBe(201);
  await page.goto(`${s.api.url}/app/p/${projectId}/workflows/${flow.body.id}`, { waitUntil: 'load' });
  await text(page, 'Envoyer un e-mail');
  await text(page, 'Envoie un e-mail au contact, à partir d’un modèle ou rédigé ici.');
  await page.waitForSelector('[role="group"][aria-label="Temps"]');
  await page.waitForSelector('::-p-aria([name="Déclencheur (Déclencheur)"])');
  // The node's line, composed by the server in the language the dashboard asks for (Accept-Language).
  await text(page, 'Quand «\u00a0inscription\u00a0» se produit');
  await page.waitForSelector('button[aria-label="Zoom avant"]');
  const editor = await page.evaluate(() => (globalThis as any).document.body.innerText as string);
  expect(editor).not.toContain('Send email');
  expect(editor).not.toMatch(/\bnext · /);
  // A step added with its name untouched is stored under the server's title, which every reader sees in their language.
  await s.click('Sortie');
  await s.click('Enregistrer l’étape');
  await page.waitForSelector('::-p-aria([name="Sortie (Sortie)"])');
  const graph = await s.h.http.get(`/workflows/${flow.body.id}`).set({ authorization: `Bearer ${secretKey}` });
  expect(graph.body.steps.map((st: { type: string; name: string }) => [st.type, st.name])).toEqual([
    ['TRIGGER', 'Trigger'],
    ['EXIT', 'Exit'],
  ]);
  await settle();
  expect(await violations(page)).toEqual([]);

  // Back to "Langue du navigateur": English again (this browser's language).
  await page.goto(`${s.api.url}/app/account`, { waitUntil: 'load' });
  await pickLanguage('Langue', 'Langue du navigateur');
  await text(page, 'Your account');
  expect(await htmlLang(page)).toBe('en');
  expect(s.problems).toEqual([]);
});
