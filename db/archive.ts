import type { Knex } from 'knex';
import type { CampaignRow } from './campaigns';

/**
 * The public archive (docs/campaigns.md "Public archive"): a project's SENT campaigns marked
 * `archive`, found by the project's slug. Nothing here reads a recipient.
 */

export interface ArchiveProject {
  id: string;
  name: string;
  slug: string;
}

export async function projectBySlug(db: Knex, slug: string): Promise<ArchiveProject | undefined> {
  return db('projects').where({ slug }).first('id', 'name', 'slug');
}

/** How many campaigns the archive page and the feed list at most, newest first. */
export const ARCHIVE_LIMIT = 100;

const published = (db: Knex, projectId: string) => db<CampaignRow>('campaigns').where({ project_id: projectId, archive: true, status: 'SENT' });

export async function archivedCampaigns(db: Knex, projectId: string, limit = ARCHIVE_LIMIT): Promise<CampaignRow[]> {
  return published(db, projectId)
    .orderBy([{ column: 'sent_at', order: 'desc', nulls: 'last' }, { column: 'id' }])
    .limit(limit);
}

export async function archivedCampaign(db: Knex, projectId: string, id: string): Promise<CampaignRow | undefined> {
  return published(db, projectId).where({ id }).first();
}
