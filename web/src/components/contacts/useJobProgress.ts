import { useQuery } from '@tanstack/react-query';
import { api, ResponseOf, unwrap } from '../../api/client';

export type Job = ResponseOf<'/contacts/bulk/{jobId}', 'get'>;
export const jobDone = (job: Job | undefined) => !!job && ['COMPLETED', 'FAILED'].includes(job.status);
export const jobPercent = (job: Job | undefined) => (job?.total ? (100 * job.processed) / job.total : jobDone(job) ? 100 : 0);

/** A bulk or export job's progress, polled every half second until it is done. */
export function useJobProgress(projectId: string, kind: 'bulk' | 'export', jobId: string | undefined) {
  return useQuery({
    queryKey: ['contact-job', projectId, kind, jobId],
    enabled: !!jobId,
    queryFn: () =>
      unwrap(
        kind === 'bulk'
          ? api.GET('/contacts/bulk/{jobId}', { params: { path: { jobId: jobId! } } })
          : api.GET('/contacts/export/{jobId}', { params: { path: { jobId: jobId! } } }),
      ),
    refetchInterval: (q) => (jobDone(q.state.data as Job | undefined) ? false : 500),
  });
}
