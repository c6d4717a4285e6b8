/**
 * Contact import at scale (issue 44 target: ≥ 20,000 rows/s for a 1,000,000-row CSV with five fields,
 * the job's progress moving all along). Through the real route and job: `POST /contacts/import`
 * (multipart) stages the rows, the `bulkJob` workflow on the real worker process upserts them, and
 * `GET /contacts/import/:jobId` is sampled every 250 ms while it runs.
 *
 * The spec caps an import file at 5 MB (about 85,000 rows of these five fields), so N rows go as
 * consecutive files of at most 5 MB, each its own job, one after another as a client would send them.
 * Printed: rows/s of staging (the requests), of the jobs (each from its 202 to COMPLETED, summed) and
 * overall (first request → last job finished), and the progress samples: how many moved, the
 * longest time the processed count stood still while a job ran. Beside it, CPU per process (this
 * process is the API; the worker; Temporal; Postgres, every backend) and, per row, in ms.
 *
 * The floor, run first: a raw COPY of the same rows into `contacts` of a second project (psql
 * \copy, every index in place), which is what storing them costs without parsing, validation,
 * staging, consent records or the job's bookkeeping.
 *
 * Usage: npx tsx bench/import.ts [rows]   (default 1,000,000)
 */
import { spawn } from 'node:child_process';
import { startStack, benchProject, startWorkerProcess, stopWorkerProcess, BenchStack } from './stack';
import { cpuMeter, formatCpu } from './cpu';
import { MAX_IMPORT_BYTES } from '../api/schemas/contactJobs';
import { contactId } from '../lib/ids';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const SAMPLE_MS = 250;

/** Five fields: email, first_name, plan, score, country. */
const HEADER = 'email,first_name,plan,score,country\n';
const row = (i: number) => `user${i}@import.bench.example,Name${i},${['free', 'pro', 'team'][i % 3]},${i % 100},${['DE', 'FR', 'US', 'BR', 'JP'][i % 5]}\n`;

/** Rows 1…N cut into CSV files of at most the spec's 5 MB each. */
function csvFiles(n: number): { csv: string; rows: number }[] {
  const files: { csv: string; rows: number }[] = [];
  let parts: string[] = [HEADER];
  let bytes = HEADER.length;
  let count = 0;
  for (let i = 1; i <= n; i++) {
    const line = row(i);
    if (bytes + line.length > MAX_IMPORT_BYTES - 1024) {
      files.push({ csv: parts.join(''), rows: count });
      parts = [HEADER];
      bytes = HEADER.length;
      count = 0;
    }
    parts.push(line);
    bytes += line.length;
    count++;
  }
  if (count) files.push({ csv: parts.join(''), rows: count });
  return files;
}

/** The floor: the same rows COPY'd straight into `contacts` of another project, through psql. */
async function copyFloor(stack: BenchStack, projectId: string, n: number): Promise<number> {
  const child = spawn(
    'psql',
    [stack.config.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-qc', '\\copy contacts (id, project_id, email, subscribed, data) FROM STDIN'],
    {
      stdio: ['pipe', 'inherit', 'inherit'],
    },
  );
  const done = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  const t0 = performance.now();
  const line = (i: number) => {
    const [email, first, plan, score, country] = row(i).trimEnd().split(',');
    const data = JSON.stringify({ first_name: first, plan, score, country });
    return `${contactId()}\t${projectId}\t${email}\tt\t${data}\n`;
  };
  for (let i = 1; i <= n; i += 10_000) {
    const chunk = Array.from({ length: Math.min(10_000, n - i + 1) }, (_, k) => line(i + k)).join('');
    if (!child.stdin.write(chunk)) await new Promise((r) => child.stdin.once('drain', r));
  }
  child.stdin.end();
  if ((await done) !== 0) throw new Error('COPY floor failed');
  return performance.now() - t0;
}

interface Job {
  status: string;
  total: number;
  processed: number;
  failed: number;
}

async function main() {
  const stack = await startStack();
  const worker = startWorkerProcess(stack);
  try {
    const { secretKey, projectId } = await benchProject(stack);
    const floorProject = await benchProject(stack);
    const auth = { authorization: `Bearer ${secretKey}` };
    const files = csvFiles(ROWS);
    console.log(
      `import bench: ${ROWS.toLocaleString()} rows in ${files.length} files of ≤ 5 MB, IMPORT_LANES ${stack.config.imports.lanes} (${new Date().toISOString()})`,
    );
    const roots = { worker: worker.pid, Temporal: stack.server.process?.pid };
    const floorCpu = cpuMeter(roots);
    const floorMs = await copyFloor(stack, floorProject.projectId, ROWS);
    console.log(
      `floor (COPY of the same rows into contacts, all indexes): ${(floorMs / 1000).toFixed(1)} s, ${Math.round(ROWS / (floorMs / 1000)).toLocaleString()} rows/s`,
    );
    console.log(`  CPU: ${formatCpu(floorCpu.stop(), { count: ROWS, unit: 'row' })}`);
    const importCpu = cpuMeter(roots);
    const t0 = performance.now();
    let stagingMs = 0;
    let jobsMs = 0;
    let samples = 0;
    let moved = 0;
    let longestStill = 0;
    let failed = 0;
    for (const [i, file] of files.entries()) {
      const form = new FormData();
      form.append('file', new Blob([file.csv], { type: 'text/csv' }), `part${i}.csv`);
      const s0 = performance.now();
      const res = await fetch(`${stack.url}/contacts/import`, { method: 'POST', headers: auth, body: form });
      stagingMs += performance.now() - s0;
      if (res.status !== 202) throw new Error(`import ${i}: ${res.status} ${await res.text()}`);
      const { jobId } = (await res.json()) as { jobId: string };
      const j0 = performance.now();
      let last = -1;
      let stillSince = performance.now();
      for (;;) {
        const job = (await (await fetch(`${stack.url}/contacts/import/${jobId}`, { headers: auth })).json()) as Job;
        const now = performance.now();
        if (job.status === 'RUNNING') {
          samples++;
          if (job.processed > last) {
            if (last >= 0) moved++;
            longestStill = Math.max(longestStill, now - stillSince);
            stillSince = now;
          }
        }
        last = Math.max(last, job.processed);
        if (job.status === 'COMPLETED' || job.status === 'FAILED') {
          if (job.status === 'FAILED' || job.processed !== file.rows) throw new Error(`job ${jobId}: ${JSON.stringify(job)}`);
          failed += job.failed;
          jobsMs += now - j0;
          break;
        }
        await new Promise((r) => setTimeout(r, SAMPLE_MS));
      }
    }
    const totalMs = performance.now() - t0;
    const cpu = importCpu.stop();
    const imported = Number((await stack.knex('contacts').where({ project_id: projectId }).count<{ n: string }[]>('* as n'))[0].n);
    const rate = (ms: number) => Math.round(ROWS / (ms / 1000)).toLocaleString();
    const ev = await stack
      .knex('events')
      .where({ project_id: projectId })
      .select(stack.knex.raw('count(*)::int AS n, count(*) FILTER (WHERE routed_at IS NULL)::int AS unrouted'))
      .first();
    console.log(`contacts stored: ${imported.toLocaleString()} (row errors: ${failed}); events written with them: ${ev.n} (${ev.unrouted} left to route)`);
    console.log(`staging (the ${files.length} requests): ${(stagingMs / 1000).toFixed(1)} s, ${rate(stagingMs)} rows/s`);
    console.log(`jobs (each from its 202 to COMPLETED, summed): ${(jobsMs / 1000).toFixed(1)} s, ${rate(jobsMs)} rows/s`);
    console.log(`overall (first request → last job finished): ${(totalMs / 1000).toFixed(1)} s, ${rate(totalMs)} rows/s (target ≥ 20,000)`);
    console.log(
      `progress: ${samples} samples while RUNNING, ${moved} of them moved; longest still ${(longestStill / 1000).toFixed(2)} s (sampled every ${SAMPLE_MS} ms)`,
    );
    console.log(`CPU (this process is the API): ${formatCpu(cpu, { count: ROWS, unit: 'row' })}`);
  } finally {
    await stopWorkerProcess(worker);
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
