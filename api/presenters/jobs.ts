import type { z } from 'zod';
import type { JobOut } from '../schemas/contactJobs';
import type { JobRow } from '../../db/jobs';
import { iso } from '../../lib/time';

/** Response shapes of the jobs routes, typed by their `*Out` schemas (api/schemas). */

/** The API shape of a job (docs/api.md, "Import and bulk jobs"). */
export function presentJob(row: JobRow): z.input<typeof JobOut> {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    total: row.total,
    processed: row.processed,
    succeeded: row.succeeded,
    failed: row.failed,
    errors: row.errors,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}
