import { log, patched, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { retentionActivities } from '../../activities/retention';

const { retentionProjects, pruneRetentionRound, dropExpiredEventPartitions } = proxyActivities<ReturnType<typeof retentionActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * Rounds one run makes in all (each removes up to RETENTION_BATCH rows of each kind in a project):
 * bounds the run's history; what is left is removed by the next run.
 */
const MAX_ROUNDS_PER_RUN = 500;

const EVENT_PARTITIONS_PATCH = 'retention-event-partitions';

export interface RetentionReport {
  projects: number;
  emailBodies: number;
  events: number;
  inbound: number;
  /** Monthly events partitions dropped whole (docs/capacity.md "Events partitioned by month"). */
  eventPartitionsDropped: string[];
  /** Projects with rows still due when the run reached MAX_ROUNDS_PER_RUN. */
  unfinished: number;
}

/**
 * Run by the `retention` Schedule every hour (docs/privacy.md "Retention"): for each project with a
 * retention setting, prunes in rounds until nothing is due. The result, the current details and a
 * log line say what went; each round also leaves a `retention.prune` audit entry in its project.
 */
export async function retention(): Promise<RetentionReport> {
  // Whole months first: what they held needs no row-by-row round.
  // Patched: a run that started before the step existed replays without it.
  const dropped = patched(EVENT_PARTITIONS_PATCH) ? await dropExpiredEventPartitions() : [];
  const projects = await retentionProjects();
  const report: RetentionReport = {
    projects: projects.length,
    emailBodies: 0,
    events: 0,
    inbound: 0,
    eventPartitionsDropped: dropped.map((d) => d.name),
    unfinished: 0,
  };
  let rounds = 0;
  for (const projectId of projects) {
    let more = true;
    while (more && rounds < MAX_ROUNDS_PER_RUN) {
      const r = await pruneRetentionRound(projectId);
      rounds++;
      report.emailBodies += r.emailBodies;
      report.events += r.events;
      report.inbound += r.inbound;
      more = r.more;
      setCurrentDetails(`${rounds} rounds: ${report.emailBodies} email bodies, ${report.events} events, ${report.inbound} inbound messages removed`);
    }
    if (more) report.unfinished++;
  }
  log.info('retention sweep', { ...report });
  return report;
}
