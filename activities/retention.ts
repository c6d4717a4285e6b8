import type { ActivityDeps } from './deps';
import { projectsWithRetention } from '../db/retention';
import { dropExpiredPartitions, pruneRound, PruneRound } from '../services/retention';
import type { DroppedPartition } from '../db/eventPartitions';

/** Rows of each kind one round removes: small enough to keep each transaction and its locks short. */
export const RETENTION_BATCH = 1000;

/** The retention sweep's activities (temporal/workflows/retention.ts). */
export function retentionActivities(deps: ActivityDeps) {
  return {
    async retentionProjects(): Promise<string[]> {
      return projectsWithRetention(deps.knex);
    },
    async dropExpiredEventPartitions(): Promise<DroppedPartition[]> {
      return dropExpiredPartitions(deps.knex, { timeScale: deps.config.workflows.timeScale });
    },
    async pruneRetentionRound(projectId: string): Promise<PruneRound> {
      return pruneRound(deps.knex, projectId, { batch: RETENTION_BATCH, timeScale: deps.config.workflows.timeScale });
    },
  };
}
