import { execFile } from 'node:child_process';
import path from 'node:path';

/**
 * A process loads only the provider SDK it uses (services/transports.ts, services/runtime.ts,
 * services/imageStore.ts). Node's own module cache tells, so the check runs in a node process of its
 * own (jest keeps a registry of its own): it loads what the API's and the worker's entries load,
 * builds the runtime, and lists which SDKs are in the cache before and after the transport is asked for.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const SDKS = ['@sendgrid/client', '@aws-sdk/client-sesv2', '@aws-sdk/client-s3', 'nodemailer'];

const PROBE = `
const { loadConfig } = require('./lib/config');
const { createKnex } = require('./db/knex');
const { createRuntime } = require('./services/runtime');
require('./api/app');
require('./activities');
const loaded = () => ${JSON.stringify(SDKS)}.filter((m) => Object.keys(require.cache).some((k) => k.includes('/node_modules/' + m + '/')));
const config = loadConfig(process.env);
const knex = createKnex(config.databaseUrl);
const runtime = createRuntime({ config, knex, temporal: { beforeClose() {} }, log: { warn() {}, info() {}, error() {} } });
const before = loaded();
const name = runtime.transport.name;
console.log(JSON.stringify({ before, after: loaded(), name }));
knex.destroy();
`;

function probe(env: Record<string, string>): Promise<{ before: string[]; after: string[]; name: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '-e', PROBE],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused', JWT_SECRET: 'x'.repeat(40), ...env },
        timeout: 60_000,
      },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout.trim().split('\n').pop()!))),
    );
  });
}

it('loads no provider SDK until the transport is asked for, and then only the one configured', async () => {
  const [log, sendgrid, ses, smtp] = await Promise.all([
    probe({ EMAIL_TRANSPORT: 'log' }),
    probe({ EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.unit' }),
    probe({ EMAIL_TRANSPORT: 'ses', SES_REGION: 'eu-west-1' }),
    probe({ EMAIL_TRANSPORT: 'smtp', SMTP_URL: 'smtp://127.0.0.1:2525' }),
  ]);
  for (const p of [log, sendgrid, ses, smtp]) expect(p.before).toEqual([]);
  expect(log).toMatchObject({ name: 'log', after: [] });
  expect(sendgrid).toMatchObject({ name: 'sendgrid', after: ['@sendgrid/client'] });
  // The SES transport encodes headers with nodemailer's MIME helpers (one small module of it).
  expect(ses.name).toBe('ses');
  expect(ses.after).toContain('@aws-sdk/client-sesv2');
  expect(ses.after).not.toContain('@sendgrid/client');
  expect(smtp).toMatchObject({ name: 'smtp', after: ['nodemailer'] });
}, 120_000);
