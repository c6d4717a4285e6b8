import { log, proxyActivities, setCurrentDetails } from '@temporalio/workflow';
import type { retentionActivities } from '../../activities/retention';

const { retentionProjects, pruneRetentionRound } = proxyActivities<ReturnType<typeof retentionActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * Rounds one run makes in all (each removes up to RETENTION_BATCH rows of each kind in a project):
 * bounds the run's history; what is left is removed by the next run.
 */
const MAX_ROUNDS_PER_RUN = 500;

export interface RetentionReport {
  projects: number;
  emailBodies: number;
  events: number;
  inbound: number;
  /** Projects with rows still due when the run reached MAX_ROUNDS_PER_RUN. */
  unfinished: number;
}

/**
 * Run by the `retention` Schedule every hour (docs/privacy.md "Retention"): for each project with a
 * retention setting, prunes in rounds until nothing is due. The result, the current details and a
 * log line say what went; each round also leaves a `retention.prune` audit entry in its project.
 */
export async function retention(): Promise<RetentionReport> {
  const projects = await retentionProjects();
  const report: RetentionReport = { projects: projects.length, emailBodies: 0, events: 0, inbound: 0, unfinished: 0 };
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
