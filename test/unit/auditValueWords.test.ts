import i18n from 'i18next';
import { z } from 'zod';
import { LimitsBody } from '../../api/schemas/billing';
import { ContactViewUpdate } from '../../api/schemas/contactViews';
import { FormUpdate } from '../../api/schemas/forms';
import { ProjectUpdate } from '../../api/schemas/projects';
import { SegmentUpdate } from '../../api/schemas/segments';
import { SettingsPatch } from '../../api/schemas/settings';
import { TemplateUpdate } from '../../api/schemas/templates';
import { TopicUpdate } from '../../api/schemas/topics';
import { WebhookEndpointUpdate } from '../../api/schemas/webhookEndpoints';
import { WorkflowUpdate } from '../../api/schemas/workflows';
import { PERMISSION_NAMES, WIPED_ON_RESET } from '../../db/projects';
import { auditDetailLines } from '../../web/src/api/auditDetails';
import { resources } from '../../web/src/i18n/resources';
import { startWebI18n } from '../helpers/webI18n';

/**
 * The audit details that hold the server's own names read as words (web/src/api/auditDetails.ts):
 * an update's `changed` (the request-body fields it set, services/audit.ts `changedKeys`), a reset's
 * `deleted` (counts by table) and a refusal's `permission`. Each set is read from where the server
 * defines it, and en, fr and de must name every member.
 */

beforeAll(startWebI18n);
afterAll(() => i18n.changeLanguage('en'));

/** The bodies whose keys an entry's `changed` lists: every route that records `changedKeys(body)`. */
const UPDATE_BODIES: Record<string, z.ZodType> = {
  'PATCH /contact-views/:id': ContactViewUpdate,
  'PATCH /forms/:id': FormUpdate,
  'PATCH /segments/:id': SegmentUpdate,
  'PATCH /settings': SettingsPatch,
  'PATCH /templates/:id': TemplateUpdate,
  'PATCH /topics/:id': TopicUpdate,
  'PATCH /users/@me/projects/:id': ProjectUpdate,
  'PUT /users/@me/projects/:id/billing-limits': LimitsBody,
  'PATCH /webhook-endpoints/:id': WebhookEndpointUpdate,
  'PATCH /workflows/:id': WorkflowUpdate,
};
/** Written as is by the template draft routes (api/routes/templates.ts). */
const LITERAL_CHANGED = ['draft'];

/** An object body's keys: through a transform (a pipe) to the object it parses; refinements keep the object. */
function bodyKeys(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return bodyKeys(schema.in as z.ZodType);
  throw new Error(`not an object body: ${schema.constructor.name}`);
}

const CHANGED_FIELDS = [...new Set([...Object.values(UPDATE_BODIES).flatMap(bodyKeys), ...LITERAL_CHANGED])].sort();

type Tree = { [k: string]: string | Tree };
const audit = (lng: 'en' | 'fr' | 'de') => resources[lng].data.audit as unknown as Record<string, Tree>;
/** The words at a dotted code (`project.reset` is `{ project: { reset } }`), when they are words. */
const wordsAt = (table: Tree, code: string) => code.split('.').reduce<string | Tree | undefined>((t, k) => (typeof t === 'object' ? t[k] : undefined), table);
const wordless = (table: Tree, codes: readonly string[]) =>
  codes.filter((c) => {
    const w = wordsAt(table, c);
    return typeof w !== 'string' || !w.trim();
  });

describe('audit detail values in words', () => {
  it('reads the update bodies the routes parse, through their refinements and transforms', () => {
    expect(bodyKeys(WorkflowUpdate)).toEqual(expect.arrayContaining(['triggerConfig', 'allowReentry']));
    expect(bodyKeys(SegmentUpdate)).toEqual(expect.arrayContaining(['condition', 'trackMembership']));
    expect(CHANGED_FIELDS).toEqual(expect.arrayContaining(['from', 'retention', 'emails', 'draft', 'settings']));
  });

  for (const lng of ['en', 'fr', 'de'] as const) {
    it(`${lng}: every field an update can change, every table a reset wipes and every permission has words`, () => {
      const a = audit(lng);
      expect([lng, wordless(a.field, CHANGED_FIELDS), wordless(a.resetTable, WIPED_ON_RESET), wordless(a.permission, PERMISSION_NAMES)]).toEqual([
        lng,
        [],
        [],
        [],
      ]);
    });
  }

  it('reads changed fields, a reset’s tables and a refused permission in the reader’s language, the route as code', async () => {
    await i18n.changeLanguage('fr');
    const fr = i18n.getFixedT('fr', 'data');
    const lines = auditDetailLines(fr, {
      changed: ['fromName', 'retention', 'somethingNew'],
      deleted: { contacts: 12, events: 40, emails: 3, new_table: 1 },
      permission: 'project.reset',
      route: 'POST /users/@me/projects/:id/reset',
      role: 'ADMIN',
    });
    const byKey = Object.fromEntries(lines.map((l) => [l.key, l]));
    expect(byKey.changed.value).toBe('Nom de l’expéditeur, Conservation, somethingNew');
    expect(byKey.deleted.value).toBe('Contacts: 12, Événements: 40, E-mails: 3, new_table: 1');
    expect(byKey.permission.value).toBe('Réinitialiser le projet');
    expect(byKey.route).toEqual({ key: 'route', label: 'Route', value: 'POST /users/@me/projects/:id/reset', code: true });
    expect(lines.filter((l) => l.code).map((l) => l.key)).toEqual(['route']);

    await i18n.changeLanguage('de');
    const de = i18n.getFixedT('de', 'data');
    const denied = auditDetailLines(de, { action: 'POST /domains', permission: 'domains.manage', unknownPermission: 'x', route: 'POST /domains' });
    expect(denied.map((l) => [l.value, l.code])).toEqual([
      ['POST /domains', true],
      ['Domains verwalten', false],
      ['x', false],
      ['POST /domains', true],
    ]);
    expect(auditDetailLines(de, { permission: 'project.archive', changed: ['from'] }).map((l) => l.value)).toEqual(['project.archive', 'Absenderadresse']);
    await i18n.changeLanguage('en');
  });
});
