import type { Knex } from 'knex';
import type { ReplicaSet } from '../db/replicas';
import { dbReads } from '../lib/metrics';

/**
 * The knex a heavy read of `projectId` runs on (counts, lists, analytics, exports): a streaming
 * replica when one is configured, fresh enough and the caller has not just written; else the
 * primary (db/replicas.ts says why). Light reads, reads inside a write, and reads that decide a
 * write (a lookup before an update) keep using `deps.knex`: they must see the latest commit.
 * `writtenAt` names when another process (the worker) last wrote what is read, e.g. a job's finish.
 */
export async function heavyReader(deps: { knex: Knex; reader?: ReplicaSet }, projectId: string, writtenAt?: Date | null): Promise<Knex> {
  if (!deps.reader) {
    dbReads.inc({ target: 'primary', reason: 'none' });
    return deps.knex;
  }
  const chosen = await deps.reader.choose(projectId, writtenAt);
  dbReads.inc({ target: chosen.target, reason: chosen.reason ?? '' });
  return chosen.knex;
}
