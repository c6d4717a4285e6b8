import type { TFunction } from 'i18next';
import type { ResponseOf } from './client';
import { momentWords, numberWords } from './dates';
import { detailValueWords } from './auditDetails';

/**
 * An audit entry's one line ("Deleted topic Product news") in the dashboard's language, composed from
 * its action, target and details with the data catalogue's `audit.summary` (one entry per action of
 * db/auditLog.ts AUDIT_ACTIONS; test/unit/auditSummary.test.ts holds en, fr and de to that list). The
 * server's English `summary` (api/presenters/audit.ts) is the fallback, for an action this dashboard
 * does not know yet.
 */

type Entry = ResponseOf<'/projects/{id}/audit', 'get'>['data'][number];
type Details = Record<string, unknown>;
/** Keys built from the action (`audit.summary.campaign.send_scheduled`): the unit test checks them, not tsc. */
type Say = (key: string, options?: Record<string, unknown>) => string;

/** Which of an action's sentences its details call for: '' for the action's own, else a suffix its catalogue entry has. */
function variant(e: Entry, d: Details): string {
  const named = Boolean(e.target.name);
  switch (e.action) {
    case 'project.require_two_factor':
      return d.requireTwoFactor ? '' : '_lifted';
    case 'member.invite':
      return named ? '' : '_someone';
    case 'invite.withdraw':
      return named ? '' : '_unnamed';
    case 'contact.erase':
      return e.target.id ? '' : '_notContact';
    case 'contact.export':
      return e.target.id ? '' : '_all';
    case 'suppression.add':
      return Number(d.existing) > 0 ? '_existing' : '';
    case 'template.create':
    case 'campaign.create':
      return d.duplicateOf ? '_copy' : '';
    case 'campaign.send':
      return d.status === 'SCHEDULED' ? (typeof d.scheduledFor === 'string' ? '_scheduled' : '_feed') : '';
    case 'access.denied':
      return named ? '_on' : '';
    default:
      return '';
  }
}

const list = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));
const countOf = (v: unknown) => (typeof v === 'number' ? v : Number(v ?? 0) || 0);

/** The values the sentences name; each sentence takes the ones it needs. */
function values(t: TFunction<'data'>, say: Say, e: Entry, d: Details): Record<string, unknown> {
  const n = countOf(d.contacts ?? d.added ?? d.removed);
  const addresses = countOf(d.added ?? d.removed);
  const role = typeof d.role === 'string' ? detailValueWords(t, 'role', d.role) : '';
  // The permission's words; an entry without one names the actions tried.
  const refused = detailValueWords(t, d.permission === undefined ? 'action' : 'permission', d.permission ?? d.action);
  const cap = (v: unknown) => (typeof v === 'number' ? numberWords(v) : v == null ? say('audit.noCap') : String(v));
  return {
    name: e.target.name ?? e.target.id ?? '',
    id: e.target.id ?? '',
    // The fields changed and the permission refused by the words of the details' lines ("From address", "Manage domains").
    changed: detailValueWords(t, 'changed', d.changed),
    role,
    prefix: d.prefix,
    scopes: list(d.scopes),
    domain: d.domain,
    emails: cap(d.emails),
    contacts: cap(d.contacts),
    count: n,
    n: numberWords(n),
    addresses: say(e.contacts.length ? 'audit.addressesNamed' : 'audit.addresses', {
      count: addresses,
      n: numberWords(addresses),
      list: e.contacts.join(', '),
    }),
    reason: typeof d.reason === 'string' ? say(`audit.reason.${d.reason}`, { defaultValue: d.reason }) : '',
    existing: say('audit.alreadySuppressed', { count: countOf(d.existing), n: numberWords(countOf(d.existing)) }),
    version: d.version,
    when: typeof d.scheduledFor === 'string' ? momentWords(d.scheduledFor) : '',
    events: list(d.events),
    // What a role was refused: the permission it lacked, with the route tried when it has no action (docs/roles.md).
    what: typeof d.route === 'string' && d.action === d.route ? `${refused} (${d.route})` : refused,
  };
}

export function auditSummary(t: TFunction<'data'>, e: Entry): string {
  const say = t as unknown as Say;
  const d = e.details ?? {};
  const [group, verb] = e.action.split('.');
  const key = `audit.summary.${group}.${verb}`;
  // An action this dashboard has no sentence for: the server's own line.
  const own = say(key, { defaultValue: '' });
  if (!own) return e.summary;
  const v = values(t, say, e, d);
  return say(`${key}${variant(e, d)}`, { ...v, defaultValue: say(key, v) }).trim();
}
