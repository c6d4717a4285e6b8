import type { z } from 'zod';
import type { JobOut } from '../schemas/contactJobs';
import type { JobRow } from '../../db/jobs';
import type { SentenceLanguage } from '../../lib/fieldSentences/types';
import { importRowMessage } from '../../lib/importRowWords';
import { iso } from '../../lib/time';

/** Response shapes of the jobs routes, typed by their `*Out` schemas (api/schemas). */

/**
 * The API shape of a job (docs/api.md, "Import and bulk jobs"). An import row's error is composed in
 * `lang` (the request's, api/language.ts) from its stored parts; English, and errors without parts, as stored.
 */
export function presentJob(row: JobRow, lang: SentenceLanguage = 'en'): z.input<typeof JobOut> {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    total: row.total,
    processed: row.processed,
    succeeded: row.succeeded,
    failed: row.failed,
    errors: row.errors.map(({ problem, ...e }) => (problem && lang !== 'en' ? { ...e, message: importRowMessage(problem, lang) } : e)),
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}
