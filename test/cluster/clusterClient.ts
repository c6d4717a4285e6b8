import crypto from 'node:crypto';

/** HTTP against one API replica of a running cluster, and the fixtures the fault tests build through it. */

export interface Reply {
  status: number;
  body: any;
}

export async function call(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; form?: FormData } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: FormData | string | undefined;
  if (opts.form) body = opts.form;
  else if (opts.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(`${base}${path}`, { method, headers, body, signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

export interface ClusterProject {
  projectId: string;
  publicKey: string;
  secretKey: string;
  cookie: string;
}

/** Signs up on one replica and creates the project on another: the session cookie must hold on both. */
export async function createProject(signupOn: string, createOn: string): Promise<ClusterProject> {
  const email = `owner-${crypto.randomBytes(5).toString('hex')}@example.test`;
  const signup = await fetch(`${signupOn}/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
  const cookie = signup.headers.getSetCookie()[0].split(';')[0];
  const project = await call(createOn, 'POST', '/users/@me/projects', { body: { name: 'cluster' }, headers: { Cookie: cookie } });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`);
  return { projectId: project.body.id, publicKey: project.body.publicKey, secretKey: project.body.secretKey, cookie };
}

export interface StepSpec {
  type: string;
  config?: Record<string, unknown>;
}

/** A workflow on `eventName` with the given steps and edges (`[from, to, branch?]`, "trigger" is the TRIGGER step), enabled. */
export async function buildWorkflow(base: string, p: ClusterProject, eventName: string, steps: Record<string, StepSpec>, edges: [string, string, string?][]) {
  const auth = bearer(p.secretKey);
  const must = (r: Reply, status: number, what: string) => {
    if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const created = must(
    await call(base, 'POST', '/workflows', { body: { name: `wf ${eventName}`, eventName, allowReentry: false }, headers: auth }),
    201,
    'create',
  );
  const ids: Record<string, string> = { trigger: created.steps[0].id };
  for (const [key, spec] of Object.entries(steps))
    ids[key] = must(await call(base, 'POST', `/workflows/${created.id}/steps`, { body: spec, headers: auth }), 201, `step ${key}`).id;
  for (const [from, to, branch] of edges) {
    must(
      await call(base, 'POST', `/workflows/${created.id}/transitions`, {
        body: { fromStepId: ids[from], toStepId: ids[to], ...(branch ? { branch } : {}) },
        headers: auth,
      }),
      201,
      `edge ${from}`,
    );
  }
  must(await call(base, 'PATCH', `/workflows/${created.id}`, { body: { enabled: true }, headers: auth }), 200, 'enable');
  return { id: created.id as string, steps: ids };
}

/** Runs `fn` over `items` with at most `concurrency` at once; results in input order. */
export async function pool<T, R>(items: T[], concurrency: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

/**
 * The environment of a cluster on a private Postgres that sends into the local SendGrid sink, with
 * the API's limiter and the send throttle lifted: the load is the caller's own, not a client to throttle.
 */
export function sinkClusterEnv(
  o: { databaseUrl: string; temporalPort: number; apiPort: number; inboundPort: number; submissionPort: number; dataDir: string; sinkUrl: string },
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: o.databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${o.temporalPort}`,
    PORT: String(o.apiPort),
    INBOUND_SMTP_PORT: String(o.inboundPort),
    SUBMISSION_PORT: String(o.submissionPort),
    DATA_DIR: o.dataDir,
    LOG_LEVEL: 'warn',
    EMAIL_TRANSPORT: 'sendgrid',
    SENDGRID_API_KEY: 'SG.cluster',
    SENDGRID_API_URL: o.sinkUrl,
    RATE_LIMIT_PER_MINUTE: '100000000',
    SEND_RATE_PER_SECOND: '1000000',
    ...extra,
  };
}
