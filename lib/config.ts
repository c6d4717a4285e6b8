import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const hostPortList = z
  .string()
  .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^[^\s:]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/, 'expected host or host:port')));

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/svc'),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('svc'),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  EMAIL_TRANSPORT: z.enum(['log', 'sendgrid']).optional(),
  SENDGRID_API_KEY: z.string().min(1).optional(),
  SENDGRID_API_URL: z.string().url().optional(),
  DNS_SERVERS: hostPortList.optional(),
  APP_URL: z.string().url().optional(),
  JWT_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  DISABLE_SIGNUPS: bool.default(false),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().positive().default(24),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  SPF_INCLUDE: z.string().min(1).default('sendgrid.net'),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().default('development'),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  port: number;
  databaseUrl: string;
  temporal: { address?: string; namespace: string; taskQueue: string; uiPort: number };
  email: { transport: 'log' | 'sendgrid'; sendgridApiKey?: string; sendgridApiUrl?: string };
  dnsServers?: string[];
  appUrl: string;
  jwtSecret: string;
  disableSignups: boolean;
  rateLimitPerMinute: number;
  idempotencyTtlHours: number;
  webhookAllowPrivate: boolean;
  spfInclude: string;
  dataDir: string;
  logLevel: Env['LOG_LEVEL'];
  production: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** The dashboard-cookie secret persists in DATA_DIR so sessions and unsubscribe links survive restarts. */
function persistedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = crypto.randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  const transport = e.EMAIL_TRANSPORT ?? (e.SENDGRID_API_KEY ? 'sendgrid' : 'log');
  if (transport === 'sendgrid' && !e.SENDGRID_API_KEY) problems.push('SENDGRID_API_KEY: required when EMAIL_TRANSPORT=sendgrid');
  if (problems.length) throw new ConfigError(problems);
  return {
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    temporal: { address: e.TEMPORAL_ADDRESS, namespace: e.TEMPORAL_NAMESPACE, taskQueue: e.TEMPORAL_TASK_QUEUE, uiPort: e.TEMPORAL_UI_PORT },
    email: { transport, sendgridApiKey: e.SENDGRID_API_KEY, sendgridApiUrl: e.SENDGRID_API_URL },
    dnsServers: e.DNS_SERVERS,
    appUrl: (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    jwtSecret: e.JWT_SECRET ?? persistedSecret(e.DATA_DIR),
    disableSignups: e.DISABLE_SIGNUPS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    spfInclude: e.SPF_INCLUDE,
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
  };
}

/** For entrypoints: one clear line per problem, then exit. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`config error: ${p}\n`);
      process.exit(1);
    }
    throw err;
  }
}
