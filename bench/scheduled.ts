/**
 * Temporal actions per scheduled email, beside the immediate /v1/send figure. N emails are sent
 * with `sendAt` spread over the next ~90 seconds (so over two or three minutes of the clock) from
 * one project, and N at once from another; once every email of both is SENT and their runs closed,
 * the bench counts the actions in each project's histories (bench/actions.ts): for the scheduled
 * side, the `scheduledSend` minute runs (signal-with-start, timers, hand-over activities) plus the
 * `deliverEmailBatch` runs they start. A scheduled email costs its minute's share, not a run of its own.
 * Usage: npx tsx bench/scheduled.ts [emails]
 */
import { startStack, postJson, benchProject, benchVerifiedDomain, startWorkerProcess, stopWorkerProcess } from './stack';
import { countActions, formatActions, untilClosed } from './actions';
import { startSendgridSink } from '../test/helpers/sendgridSink';

const EMAILS = Number(process.argv[2] ?? 500);
const SPREAD_MS = 90_000;
const LEAD_MS = 10_000;
const CONCURRENCY = 16;

async function main() {
  const stack = await startStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
  const sink = await startSendgridSink();
  const worker = startWorkerProcess(stack, {
    EMAIL_TRANSPORT: 'sendgrid',
    SENDGRID_API_KEY: 'SG.bench',
    SENDGRID_API_URL: sink.url,
    SEND_RATE_PER_SECOND: '1000000',
  });
  try {
    const now = await benchProject(stack);
    const later = await benchProject(stack);
    await benchVerifiedDomain(stack, now.projectId);
    await benchVerifiedDomain(stack, later.projectId);
    const body = (i: number) => ({ to: `user${i}@bench.example`, from: 'hi@bench.example', subject: 'Hello', body: '<p>Hi {{ name ?? "there" }}</p>' });
    const start = Date.now();
    const post = async (key: string, extra: (i: number) => object) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < EMAILS) {
            const i = next++;
            if (!(await postJson(`${stack.url}/v1/send`, { ...body(i), ...extra(i) }, { authorization: `Bearer ${key}` })))
              throw new Error(`send ${i} refused`);
          }
        }),
      );
    };
    await post(later.secretKey, (i) => ({ sendAt: new Date(start + LEAD_MS + Math.floor((i * SPREAD_MS) / EMAILS)).toISOString() }));
    await post(now.secretKey, () => ({}));
    const client = await stack.temporal.client();
    for (;;) {
      // Done when nothing waits or is in flight (a provider refusal leaves FAILED, which is done too).
      const [{ n }] = await stack
        .knex('emails')
        .whereIn('project_id', [now.projectId, later.projectId])
        .whereIn('status', ['SCHEDULED', 'QUEUED', 'SENDING'])
        .count({ n: '*' });
      if (Number(n) === 0) break;
      if (worker.exitCode !== null) throw new Error('the worker exited');
      await new Promise((r) => setTimeout(r, 500));
    }
    const minutes = new Set(
      (await stack.knex('emails').where({ project_id: later.projectId }).select('send_at')).map((r: { send_at: Date }) =>
        Math.floor(r.send_at.getTime() / 60_000),
      ),
    ).size;
    console.log(`scheduled bench: ${EMAILS} emails each side; scheduled ones due over ${SPREAD_MS / 1000}s (${minutes} minutes of the clock)`);
    for (const [label, p] of [
      ['POST /v1/send (now)', now],
      ['POST /v1/send (sendAt)', later],
    ] as const) {
      const mine = `ProjectId = '${p.projectId}'`;
      await untilClosed(client, mine);
      const tally = await countActions(client, mine, { groupBy: (w) => w.type });
      const runs = Object.entries(tally.runs)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ');
      console.log(`  ${label.padEnd(24)} : ${formatActions(tally.total, EMAILS, 'email')}; runs: ${runs}`);
    }
  } finally {
    await stopWorkerProcess(worker);
    await sink.stop();
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
