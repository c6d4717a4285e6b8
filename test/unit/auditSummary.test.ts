import i18n from 'i18next';
import { AUDIT_ACTIONS, AUDIT_DETAIL_KEYS, AUDIT_TARGET_TYPES, targetTypeOf, type AuditAction } from '../../db/auditLog';
import { presentAuditEntry } from '../../api/presenters/audit';
import { auditSummary } from '../../web/src/api/auditSummary';
import { auditDetailLines, targetTypeWords } from '../../web/src/api/auditDetails';
import { resources } from '../../web/src/i18n/resources';
import { startWebI18n } from '../helpers/webI18n';

/**
 * The audit log's lines in the dashboard's language (web/src/api/auditSummary.ts): every action the
 * server can write (its one definition, db/auditLog.ts AUDIT_ACTIONS) has a sentence in en, fr and de,
 * each of an action's variants is found, and an action the dashboard does not know reads as the
 * server's own summary.
 */

beforeAll(startWebI18n);
afterAll(() => i18n.changeLanguage('en'));

type Entry = Parameters<typeof auditSummary>[1];
type Tree = { [k: string]: string | Tree };

/** An entry as GET /projects/:id/audit answers it, through the server's own presenter (its English summary included). */
function entry(
  action: AuditAction,
  details: Record<string, unknown> | null = null,
  target: { id?: string | null; name?: string | null } = {},
  contacts: string[] = [],
): Entry {
  return presentAuditEntry({
    id: '1',
    project_id: 'p',
    at: new Date('2026-01-01T00:00:00Z'),
    actor: 'system',
    actor_email: null,
    action,
    target_type: action.split('.')[0],
    target_id: target.id === undefined ? 'id-1' : target.id,
    target_name: target.name === undefined ? 'Thing' : target.name,
    contact_emails: contacts,
    details,
    ip: null,
  } as Parameters<typeof presentAuditEntry>[0]) as Entry;
}

/** One entry per action, with the details the server writes for it; and one per variant. */
const SAMPLES: Entry[] = [
  ...AUDIT_ACTIONS.map((a) =>
    entry(a, {
      changed: ['name'],
      role: 'ADMIN',
      prefix: 'key_Ab',
      scopes: ['send'],
      domain: 'l.example.com',
      contacts: 3,
      added: 2,
      removed: 1,
      reason: 'MANUAL',
      version: 2,
      events: ['email.sent'],
      permission: 'p',
      route: 'r',
      action: 'r',
      requireTwoFactor: true,
      status: 'SENT',
    }),
  ),
  entry('project.require_two_factor', { requireTwoFactor: false }),
  entry('member.invite', { role: 'MEMBER' }, { name: null }),
  entry('invite.withdraw', {}, { name: null }),
  entry('contact.erase', {}, { id: null, name: null }),
  entry('contact.export', {}, { id: null, name: null }),
  entry('contact.import', { contacts: 1 }),
  entry('suppression.add', { added: 1, existing: 2, reason: 'HARD_BOUNCE' }, { id: null, name: null }, ['a@example.com']),
  entry('template.create', { duplicateOf: 'x' }),
  entry('campaign.create', { duplicateOf: 'x' }),
  entry('campaign.send', { status: 'SCHEDULED', scheduledFor: '2030-01-01T09:00:00.000Z' }),
  entry('campaign.send', { status: 'SCHEDULED', rss: true }),
  entry('access.denied', { role: 'MEMBER', permission: 'p', route: 'r', action: 'r' }, { name: null }),
  entry('billing.limits', { emails: 1000, contacts: null }),
];

describe('audit log lines', () => {
  it('every action the server writes has a sentence in en, fr and de', () => {
    for (const lng of ['en', 'fr', 'de'] as const) {
      const summary = (resources[lng].data.audit as unknown as { summary: Tree }).summary;
      const missing = AUDIT_ACTIONS.filter((a) => {
        const [group, verb] = a.split('.');
        const words = (summary[group] as Tree | undefined)?.[verb];
        return typeof words !== 'string' || !words.trim();
      });
      expect([lng, missing]).toEqual([lng, []]);
    }
  });

  for (const lng of ['en', 'fr', 'de'] as const) {
    it(`${lng}: each action and variant reads as a whole sentence of the catalogue, never the server's English fallback`, async () => {
      await i18n.changeLanguage(lng);
      const t = i18n.getFixedT(lng, 'data');
      for (const e of SAMPLES) {
        const line = auditSummary(t, e);
        expect([e.action, line]).toEqual([e.action, expect.not.stringMatching(/\{\{|undefined|null|audit\.summary/)]);
        if (lng !== 'en')
          expect([e.action, line]).toEqual([e.action, expect.not.stringMatching(new RegExp(`^${e.summary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))]);
      }
    });
  }

  it('English reads as the server wrote it where the words are the same (names, counts, variants)', async () => {
    await i18n.changeLanguage('en');
    const t = i18n.getFixedT('en', 'data');
    const same: Entry[] = [
      entry('topic.delete'),
      entry('project.create', null, { name: 'Topics project' }),
      entry('contact.import', { contacts: 1 }),
      entry('contact.bulk_delete', { contacts: 4 }),
      entry('project.require_two_factor', { requireTwoFactor: false }),
      entry('contact.export', {}, { id: null, name: null }),
      entry('template.create', { duplicateOf: 'x' }),
      entry('campaign.send', { status: 'SENT' }),
      entry('billing.limits', { emails: 100, contacts: null }),
    ];
    for (const e of same) expect(auditSummary(t, e)).toBe(e.summary);
  });

  it('names the fields changed and the permission refused in words, a route as written', async () => {
    await i18n.changeLanguage('en');
    const en = i18n.getFixedT('en', 'data');
    expect(auditSummary(en, entry('settings.update', { changed: ['retention', 'timezone'] }))).toBe('Changed the settings (Retention, Time zone)');
    const byRoute = entry('access.denied', { role: 'MEMBER', permission: 'domains.manage', route: 'POST /domains', action: 'POST /domains' }, { name: null });
    expect(auditSummary(en, byRoute)).toBe('Refused (role member): Manage domains (POST /domains)');
    const byAction = entry(
      'access.denied',
      { role: 'MEMBER', permission: 'webhooks.manage', route: 'PATCH /webhook-endpoints/:id', action: 'webhook_endpoint.update' },
      { name: 'https://hooks.example.com/a' },
    );
    expect(auditSummary(en, byAction)).toBe('Refused (role member): Manage webhooks on https://hooks.example.com/a');
    await i18n.changeLanguage('de');
    const de = i18n.getFixedT('de', 'data');
    expect(auditSummary(de, entry('template.update', { changed: ['from', 'fieldOfTomorrow'] }))).toBe(
      'Vorlage Thing geändert (Absenderadresse, fieldOfTomorrow)',
    );
    expect(auditSummary(de, byRoute)).toBe('Abgelehnt (Rolle Mitglied): Domains verwalten (POST /domains)');
    await i18n.changeLanguage('en');
  });

  it("an action the dashboard has no sentence for reads as the server's summary", () => {
    const t = i18n.getFixedT('fr', 'data');
    const unknown = { ...entry('topic.delete'), action: 'topic.archive', summary: 'Archived topic Thing' } as unknown as Entry;
    expect(auditSummary(t, unknown)).toBe('Archived topic Thing');
    expect(auditSummary(t, entry('topic.delete'))).toBe('Sujet Thing supprimé');
    expect(auditSummary(t, entry('suppression.add', { added: 1, existing: 2, reason: 'HARD_BOUNCE' }, { id: null, name: null }, ['a@example.com']))).toBe(
      'Blocage ajouté pour 1 adresse (a@example.com) (rejet définitif) ; 2 étaient déjà bloquées',
    );
  });
});

describe('audit log targets and details', () => {
  it('every target type and detail key the server writes has words in en, fr and de', () => {
    for (const lng of ['en', 'fr', 'de'] as const) {
      const audit = resources[lng].data.audit as unknown as { targetType: Tree; detail: Tree };
      const wordless = (table: Tree, keys: readonly string[]) => keys.filter((k) => typeof table[k] !== 'string' || !(table[k] as string).trim());
      expect([lng, wordless(audit.targetType, AUDIT_TARGET_TYPES), wordless(audit.detail, AUDIT_DETAIL_KEYS)]).toEqual([lng, [], []]);
    }
  });

  it("the roles' refusals name a target type the log knows, the action's own or the project", () => {
    expect(targetTypeOf('campaign.update')).toBe('campaign');
    expect(targetTypeOf('billing.limits')).toBe('project');
    expect(targetTypeOf('member.role')).toBe('project');
    expect(targetTypeOf(undefined)).toBe('project');
  });

  it('reads details as labelled values in the reader’s language, codes in words, and keeps unknown keys as written', async () => {
    await i18n.changeLanguage('fr');
    const t = i18n.getFixedT('fr', 'data');
    const lines = auditDetailLines(t, {
      role: 'ADMIN',
      enabled: false,
      scopes: ['send', 'read'],
      scheduledFor: '2030-01-01T09:00:00.000Z',
      contacts: 2500,
      emails: null,
      action: ['campaign.send', 'campaign.cancel'],
      removed: { emailBodies: 3, events: 0 },
      somethingNew: 'x',
    });
    const byKey = Object.fromEntries(lines.map((l) => [l.key, `${l.label}: ${l.value}`]));
    expect(byKey.role).toBe('Rôle: administrateur');
    expect(byKey.enabled).toBe('Activé: non');
    expect(byKey.scopes).toBe('Portées: send, read');
    expect(byKey.scheduledFor).toMatch(/^Programmée pour: 1 janv\. 2030, \d\d:00 /);
    expect(byKey.contacts).toBe('Contacts: 2\u202f500');
    expect(byKey.emails).toBe('E-mails: sans plafond');
    expect(byKey.action).toBe('Tentative: A envoyé ou programmé une campagne, A annulé une campagne');
    expect(byKey.removed).toBe('Retiré: Corps d’e-mails: 3, Événements: 0');
    expect(byKey.somethingNew).toBe('somethingNew: x');
    expect(targetTypeWords(t, 'webhook_endpoint')).toBe('Point de terminaison de webhook');
    expect(targetTypeWords(t, 'tests')).toBe('tests');
    await i18n.changeLanguage('en');
  });
});
