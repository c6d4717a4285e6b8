import { useQuery } from '@tanstack/react-query';
import { api, ResponseOf, unwrap } from '../../api/client';
import { keys } from '../../api/queryKeys';

export type Job = ResponseOf<'/contacts/bulk/{jobId}', 'get'>;
export type ImportJob = ResponseOf<'/contacts/import/{jobId}', 'get'>;
type Progress = Pick<Job, 'status' | 'total' | 'processed'>;
export const jobDone = (job: Progress | undefined) => !!job && ['COMPLETED', 'FAILED'].includes(job.status);
export const jobPercent = (job: Progress | undefined) => (job?.total ? (100 * job.processed) / job.total : jobDone(job) ? 100 : 0);

const fetchJob = {
  bulk: (jobId: string) => unwrap(api.GET('/contacts/bulk/{jobId}', { params: { path: { jobId } } })),
  export: (jobId: string) => unwrap(api.GET('/contacts/export/{jobId}', { params: { path: { jobId } } })),
  import: (jobId: string) => unwrap(api.GET('/contacts/import/{jobId}', { params: { path: { jobId } } })),
};

/** A contact job's progress (an import, a bulk change, an export), polled every half second until it is done. */
export function useJobProgress<K extends keyof typeof fetchJob>(projectId: string, kind: K, jobId: string | undefined) {
  return useQuery({
    queryKey: keys.contacts.job(projectId, kind, jobId),
    enabled: !!jobId,
    queryFn: () => fetchJob[kind](jobId!) as ReturnType<(typeof fetchJob)[K]>,
    refetchInterval: (q) => (jobDone(q.state.data as Progress | undefined) ? false : 500),
  });
}
