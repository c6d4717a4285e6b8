import type { z } from 'zod';
import type { DomainOut } from '../schemas/domains';
import { type DomainRow, problemIn } from '../../db/domains';
import type { SentenceLanguage } from '../../lib/fieldSentences/types';
import { iso } from '../../lib/time';

/** Response shapes of the domains routes, typed by their `*Out` schemas (api/schemas). */

/** `lang` is the request's (api/language.ts): each record's problem is composed in it from what its check found. */
export function presentDomain(row: DomainRow, lang: SentenceLanguage = 'en'): z.input<typeof DomainOut> {
  return {
    id: row.id,
    domain: row.domain,
    projectId: row.project_id,
    status: row.status,
    // `found` is the check's own note, not part of the answer; the keys keep the order they are stored in.
    records: row.records.map((record) => {
      const { found: _found, ...r } = record;
      return { ...r, problem: problemIn(record, lang) };
    }),
    lastCheckedAt: iso(row.last_checked_at),
    verifiedAt: iso(row.verified_at),
    createdAt: iso(row.created_at)!,
  };
}
