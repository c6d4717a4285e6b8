import type { TemporalGateway } from './temporal';
import { start } from './temporal';
import { bulkJobSpec } from '../temporal/workflows/bulkJob/start';

/** Starts the `bulkJob` workflow of a staged job; a repeat start is a no-op. `lanes`: an import's batches in flight (IMPORT_LANES). */
export async function startBulkJob(gateway: TemporalGateway, job: { id: string; project_id: string; type: string; total: number }, lanes = 1): Promise<void> {
  await start(gateway, bulkJobSpec, { ...job, lanes });
}
