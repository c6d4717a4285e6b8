import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import net from 'node:net';
import { z } from 'zod';
import { parsePublicKey } from './publicKey';

const bool = z.enum(['true', 'false', '1', '0', 'yes', 'no', '']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const hostPortList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[^\s:]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/, 'expected host or host:port')));

/** `host:port` to listen on (the SDK's exporter needs both parts). */
const BIND_ADDRESS = /^([^\s:[\]]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/;
const bindAddress = z
  .string()
  .trim()
  .refine((s) => Number(BIND_ADDRESS.exec(s)?.[2] ?? NaN) <= 65535, 'must be host:port, like 0.0.0.0:9464');

/** Empty or blank means unset (`FOO=` in a compose file), as the modules that once read these variables themselves treated it. */
const unsetIfBlank = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema);

/** One message per variable, whatever is wrong with the number. */
const numberIn = (message: string, ok: (n: number) => boolean) => z.coerce.number({ error: message }).refine(ok, message);
const intIn = (min: number, max = Infinity) =>
  numberIn(
    max === Infinity ? `must be an integer of at least ${min}` : `must be an integer from ${min} to ${max}`,
    (n) => Number.isInteger(n) && n >= min && n <= max,
  );
const positive = numberIn('must be a positive number', (n) => n > 0 && Number.isFinite(n));
const rate = numberIn('must be a rate from 0 to 1 (0.05 = 5 %)', (n) => n >= 0 && n <= 1);

const optionalText = unsetIfBlank(z.string().trim().optional());

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Comma-separated web origins (`https://app.example.com`), each reduced to its canonical `scheme://host[:port]`. */
const originList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z
        .string()
        .refine(
          (u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol),
          'must be a comma-separated list of http(s) origins, like https://app.example.com',
        )
        .transform((u) => new URL(u).origin),
    ),
  );

const publicKeyText = unsetIfBlank(
  z
    .string()
    .trim()
    .refine((text) => {
      try {
        parsePublicKey(text);
        return true;
      } catch {
        return false;
      }
    }, 'must be a public key: the base64 DER string SendGrid shows, or a PEM')
    .optional(),
);

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  // Interface the API listens on; unset: all of them (a container, or a machine where the API is public).
  API_HOST: unsetIfBlank(
    z
      .string()
      .trim()
      .regex(/^[^\s/]+$/, 'must be an address such as 127.0.0.1 or 0.0.0.0')
      .optional(),
  ),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/svc'),
  // 0 turns it off. The API's pool only: the worker's batch statements (audience snapshots) may run long.
  DB_STATEMENT_TIMEOUT_MS: unsetIfBlank(intIn(0).default(15_000)),
  // Streaming replicas for the dashboard's heavy reads (docs/capacity.md "Read replicas"); unset: everything reads DATABASE_URL.
  DATABASE_REPLICA_URL: unsetIfBlank(
    z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().url('must be a comma-separated list of postgres:// URLs')))
      .optional(),
  ),
  // A replica further behind than this is skipped (its reads go to the primary) until it catches up.
  REPLICA_MAX_LAG_MS: unsetIfBlank(intIn(0).default(2_000)),
  // Contact counts at or above this many rows are estimated (docs/capacity.md "Estimated counts"); 0: always exact.
  COUNT_ESTIMATE_THRESHOLD: unsetIfBlank(intIn(0).default(1_000_000)),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('svc'),
  TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
  // Where the dashboard links an execution to; unset: the local dev server's UI (TEMPORAL_UI_PORT).
  TEMPORAL_UI_URL: unsetIfBlank(z.string().trim().url().optional()),
  TEMPORAL_PORT: unsetIfBlank(intIn(1, 65535).default(7233)),
  EMAIL_TRANSPORT: z.enum(['log', 'sendgrid', 'smtp', 'ses']).optional(),
  SENDGRID_API_KEY: z.string().min(1).optional(),
  SENDGRID_API_URL: z.string().url().optional(),
  // SMTP (docs/providers.md): nodemailer's pooled transport; the service DKIM-signs what it sends this way.
  SMTP_URL: unsetIfBlank(
    z
      .string()
      .trim()
      .refine((u) => URL.canParse(u) && /^smtps?:$/.test(new URL(u).protocol), 'must be smtp://user:pass@host:port or smtps://…')
      .optional(),
  ),
  SMTP_POOL_SIZE: unsetIfBlank(intIn(1, 100).default(5)),
  DKIM_SELECTOR: unsetIfBlank(
    z
      .string()
      .trim()
      .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a DNS label, like svc')
      .default('svc'),
  ),
  ENCRYPTION_KEY: unsetIfBlank(z.string().min(16, 'must be at least 16 characters').optional()),
  // Amazon SES v2 through the official client; the endpoint override points it at a local sink in tests.
  SES_REGION: unsetIfBlank(z.string().trim().default('us-east-1')),
  SES_ENDPOINT: unsetIfBlank(z.string().trim().url('must be a URL').optional()),
  SES_ACCESS_KEY_ID: optionalText,
  SES_SECRET_ACCESS_KEY: optionalText,
  SES_CONFIGURATION_SET: optionalText,
  // Hosts whose certificates may sign SNS notifications (POST /webhooks/ses); default: AWS's sns.<region>.amazonaws.com.
  SNS_CERT_HOSTS: unsetIfBlank(hostPortList.optional()),
  // Extra CA certificates (PEM) trusted, besides the system's, by the SNS certificate and SubscribeURL fetches only (LocalStack, tests).
  SNS_CERT_CA: unsetIfBlank(
    z
      .string()
      .trim()
      .regex(/-----BEGIN CERTIFICATE-----/, 'must be PEM certificates')
      .optional(),
  ),
  // The SNS topics POST /webhooks/ses accepts messages from (AWS: "reject any message with an unexpected TopicArn"); unset: the route answers 404.
  SNS_TOPIC_ARNS: unsetIfBlank(
    z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.string().regex(/^arn:aws[\w-]*:sns:[\w-]+:\d{12}:[\w.-]{1,256}$/, 'expected SNS topic ARNs, like arn:aws:sns:us-east-1:123456789012:ses-events'),
        ),
      )
      .optional(),
  ),
  // The per-project delivery throttle (every path, every worker); a project's settings may lower or raise it.
  SEND_RATE_PER_SECOND: unsetIfBlank(positive.default(1000)),
  // The maildev inbox `npm start` runs when no provider is named (scripts/devInbox.ts); loopback only.
  DEV_INBOX_SMTP_PORT: unsetIfBlank(intIn(1, 65535).default(1025)),
  DEV_INBOX_WEB_PORT: unsetIfBlank(intIn(1, 65535).default(1080)),
  DNS_SERVERS: hostPortList.optional(),
  APP_URL: z.string().url().optional(),
  // Base of open-pixel and click URLs (docs/tracking.md); a tracking domain is a CNAME to this server.
  TRACKING_URL: unsetIfBlank(z.string().url().optional()),
  // On the shared tracking host, a tracked link older than this answers a page naming its destination instead of redirecting.
  TRACKING_LINK_DAYS: unsetIfBlank(intIn(1).default(365)),
  DASHBOARD_ORIGINS: unsetIfBlank(originList.optional()),
  JWT_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  // Login, signup and password-reset attempts per client address per minute (db/authThrottle.ts).
  AUTH_RATE_LIMIT_PER_MINUTE: unsetIfBlank(intIn(1).default(20)),
  // Signup form submissions (docs/forms.md "Abuse"): per client address across all forms, and per form.
  FORM_RATE_LIMIT_PER_MINUTE: unsetIfBlank(intIn(1).default(10)),
  FORM_SUBMISSIONS_PER_MINUTE: unsetIfBlank(intIn(1).default(120)),
  DISABLE_SIGNUPS: bool.default(false),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(1000),
  RATE_LIMIT_PUBLIC_SHARE: unsetIfBlank(numberIn('must be a share above 0 and at most 1 (0.5 = half)', (n) => n > 0 && n <= 1).default(0.5)),
  IDEMPOTENCY_TTL_HOURS: z.coerce.number().positive().default(24),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_RETRY_HOURS: unsetIfBlank(positive.default(24)),
  WEBHOOK_ENDPOINT_RATE_PER_SECOND: unsetIfBlank(numberIn('must be a number of at least 1', (n) => n >= 1 && Number.isFinite(n)).default(50)),
  // Unset: the transport's own (services' SPF term, spfMechanism below).
  SPF_INCLUDE: unsetIfBlank(z.string().trim().min(1).optional()),
  DATA_DIR: z.string().min(1).default('.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.string().default('development'),
  TEMPORAL_MAX_CACHED_WORKFLOWS: unsetIfBlank(intIn(0).default(100)),
  WORKFLOW_BUNDLE: unsetIfBlank(z.string().min(1).optional()),
  SYSTEM_EMAIL_FROM: unsetIfBlank(
    z
      .string()
      .trim()
      .regex(/^[^\s@<>]+@[^\s@<>]+$/, 'must be a bare email address, like no-reply@example.com')
      .default('no-reply@localhost'),
  ),
  SENDGRID_WEBHOOK_PUBLIC_KEY: publicKeyText,
  SECURITY_WINDOW_HOURS: unsetIfBlank(positive.default(7 * 24)),
  SECURITY_MAX_BOUNCE_RATE: unsetIfBlank(rate.default(0.05)),
  SECURITY_MAX_COMPLAINT_RATE: unsetIfBlank(rate.default(0.003)),
  SECURITY_MIN_SENT: unsetIfBlank(intIn(1).default(100)),
  WORKFLOW_TIME_SCALE: unsetIfBlank(positive.default(1)),
  // SendGrid takes at most 1000 recipients per call (services/sendgridBatches MAX_BATCH_RECIPIENTS).
  CAMPAIGN_BATCH_SIZE: unsetIfBlank(intIn(1, 1000).default(1000)),
  CAMPAIGN_BATCHES_PER_RUN: unsetIfBlank(intIn(1).default(50)),
  CAMPAIGN_BATCH_LANES: unsetIfBlank(intIn(1, 16).default(3)),
  IMPORT_LANES: unsetIfBlank(intIn(1, 16).default(2)),
  SEGMENT_COMPUTE_LANES: unsetIfBlank(intIn(1, 16).default(2)),
  STRIPE_SECRET_KEY: optionalText,
  STRIPE_WEBHOOK_SECRET: optionalText,
  STRIPE_PRICE_ID: optionalText,
  STRIPE_API_URL: unsetIfBlank(z.string().trim().url('must be a URL').default('https://api.stripe.com')),
  METRICS_TOKEN: optionalText,
  WORKER_METRICS_ADDRESS: unsetIfBlank(bindAddress.optional()),
  WORKER_APP_METRICS_ADDRESS: unsetIfBlank(bindAddress.optional()),
  CLUSTER_MODE: unsetIfBlank(bool.default(false)),
  UPLOAD_STORE: unsetIfBlank(z.enum(['postgres', 's3']).default('postgres')),
  S3_BUCKET: optionalText,
  S3_ENDPOINT: unsetIfBlank(z.string().trim().url('must be a URL').optional()),
  S3_REGION: unsetIfBlank(z.string().trim().default('us-east-1')),
  S3_ACCESS_KEY_ID: optionalText,
  S3_SECRET_ACCESS_KEY: optionalText,
  S3_FORCE_PATH_STYLE: unsetIfBlank(bool.default(false)),
  // The inbound SMTP server (docs/inbound.md): bounces, complaints, replies and mail to projects.
  INBOUND_SMTP_PORT: unsetIfBlank(intIn(0, 65535).default(2525)),
  // Unset: 127.0.0.1 in development (nothing outside the machine can reach it), every interface in production.
  INBOUND_SMTP_HOST: unsetIfBlank(
    z
      .string()
      .trim()
      .regex(/^[^\s/]+$/, 'must be an address such as 127.0.0.1 or 0.0.0.0')
      .optional(),
  ),
  INBOUND_MAX_BYTES: unsetIfBlank(intIn(1024).default(10 * 1024 * 1024)),
  // PEM files; both set: the server offers STARTTLS.
  INBOUND_TLS_CERT: optionalText,
  INBOUND_TLS_KEY: optionalText,
  // The SMTP submission server (docs/smtp.md): apps that speak only SMTP send through /v1/send's path.
  // 587 with STARTTLS; SUBMISSION_TLS_PORT (465 in production) adds implicit TLS, unset: off.
  SUBMISSION_PORT: unsetIfBlank(intIn(0, 65535).default(587)),
  SUBMISSION_TLS_PORT: unsetIfBlank(intIn(0, 65535).optional()),
  // Unset: 127.0.0.1 in development, every interface in production (as INBOUND_SMTP_HOST).
  SUBMISSION_HOST: unsetIfBlank(
    z
      .string()
      .trim()
      .regex(/^[^\s/]+$/, 'must be an address such as 127.0.0.1 or 0.0.0.0')
      .optional(),
  ),
  SUBMISSION_MAX_BYTES: unsetIfBlank(intIn(1024).default(20 * 1024 * 1024)),
  // PEM files; neither set: a self-signed pair is generated under DATA_DIR (development).
  SUBMISSION_TLS_CERT: optionalText,
  SUBMISSION_TLS_KEY: optionalText,
  // The host the MX records shown with each sender domain name; unset: APP_URL's host.
  INBOUND_MX_HOST: unsetIfBlank(
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*$/, 'must be a host name, like mx.example.com')
      .optional(),
  ),
  // The domain of the VERP return path; unset: `bounces.<sender domain>`.
  BOUNCE_DOMAIN: unsetIfBlank(
    z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/, 'must be a domain name, like bounces.example.com')
      .optional(),
  ),
  // Single sign-on with OpenID Connect (docs/security.md "Single sign-on"): all three set, or none.
  OIDC_ISSUER: unsetIfBlank(
    z
      .string()
      .trim()
      .refine((u) => URL.canParse(u) && /^https?:$/.test(new URL(u).protocol), {
        message: 'must be the URL of an OpenID provider, like https://login.example.com',
        abort: true,
      })
      // The ID token's keys and the code exchange travel over it: plain http only to this machine (development, tests).
      .refine((u) => !URL.canParse(u) || new URL(u).protocol === 'https:' || LOOPBACK.has(new URL(u).hostname), 'must use https (http only for localhost)')
      .optional(),
  ),
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_ALLOWED_DOMAINS: unsetIfBlank(
    z
      .string()
      .transform((s) =>
        s
          .split(',')
          .map((x) => x.trim().toLowerCase().replace(/^@/, ''))
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z.string().regex(/^(?!-)[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})+$/, 'must be a comma-separated list of email domains, like example.com,example.org'),
        ),
      )
      .optional(),
  ),
  OIDC_NAME: unsetIfBlank(z.string().trim().max(60, 'must be at most 60 characters').optional()),
});

/** Every variable `loadConfig` reads, besides the `OAUTH_<PROVIDER>_CLIENT_ID` / `_CLIENT_SECRET` pairs. */
export const ENV_VARIABLES = Object.keys(EnvSchema.shape);

const OAUTH_CLIENT_ID = /^OAUTH_([A-Z0-9]+)_CLIENT_ID$/;
export const OAUTH_VARIABLES = ['OAUTH_<PROVIDER>_CLIENT_ID', 'OAUTH_<PROVIDER>_CLIENT_SECRET'];

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  port: number;
  /** Interface the API listens on; undefined: every interface. */
  apiHost?: string;
  databaseUrl: string;
  /** statement_timeout of the API's Postgres sessions (ms; 0: none). */
  dbStatementTimeoutMs: number;
  /** Streaming replicas of DATABASE_URL for heavy reads (DATABASE_REPLICA_URL); empty: none. */
  databaseReplicaUrls: string[];
  /** How far (ms) a replica may lag behind the primary and still serve reads (REPLICA_MAX_LAG_MS). */
  replicaMaxLagMs: number;
  /** Contact counts at or above this many rows are estimated, and say so (COUNT_ESTIMATE_THRESHOLD; 0: always exact). */
  countEstimateThreshold: number;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    uiPort: number;
    /** The Temporal Web UI the dashboard links executions to (TEMPORAL_UI_URL, else the dev server's). */
    uiUrl: string;
    /** gRPC port of the dev server `npm start` runs when no address is set. */
    port: number;
    /** Workers' sticky cache: bounds RSS while many executions wait (each cached one holds ~0.2–0.45 MB). */
    maxCachedWorkflows: number;
    /** `npm run worker`'s prebuilt workflow bundle (worker/workflowBundle.ts); `off` bundles from source at start. */
    workflowBundle?: string;
  };
  email: EmailConfig;
  dnsServers?: string[];
  appUrl: string;
  /** Base of first-party open and click URLs (`/t/o/…`, `/t/c/…`): TRACKING_URL, else APP_URL. */
  trackingUrl: string;
  /** Days a tracked link redirects on the shared tracking host; older ones answer an interstitial page (docs/tracking.md). */
  trackingLinkDays: number;
  /** Origins whose pages may make cookie-authenticated writes: APP_URL's origin plus DASHBOARD_ORIGINS. */
  dashboardOrigins: string[];
  jwtSecret: string;
  disableSignups: boolean;
  rateLimitPerMinute: number;
  /** Most of `rateLimitPerMinute` the public key may use (0 < x ≤ 1): the secret key keeps the rest. */
  rateLimitPublicShare: number;
  /** Login, signup and password-reset attempts per client address per minute. */
  authRateLimitPerMinute: number;
  /** Signup form submissions allowed per minute (POST /f/:id): from one client address, and to one form. */
  forms: { perAddressPerMinute: number; perFormPerMinute: number };
  idempotencyTtlHours: number;
  webhookAllowPrivate: boolean;
  /** The SPF term a sender domain's record must carry (`include:sendgrid.net`, `a:relay.example.com`): SPF_INCLUDE, else the transport's. */
  spfMechanism: string;
  dataDir: string;
  logLevel: Env['LOG_LEVEL'];
  production: boolean;
  /** Sender of the server's own mail (verification, password reset, invites). */
  systemEmailFrom: string;
  /** Verifies SendGrid's Event Webhook signatures; unset: unsigned events are accepted in development only. */
  sendgridWebhookPublicKey?: string;
  /** Sign-in providers with both a client id and a secret, sorted by id. */
  oauthProviders: OAuthProviderConfig[];
  /** Single sign-on with OpenID Connect; undefined: off. */
  sso?: SsoConfig;
  billing: BillingConfig;
  security: SecurityConfig;
  campaigns: CampaignConfig;
  /** Import batches one import job keeps in flight (each its own Postgres backend). */
  imports: { lanes: number };
  /** Lanes one segment compute walks side by side (each its own Postgres backend). */
  segments: { computeLanes: number };
  workflows: { timeScale: number };
  metrics: MetricsConfig;
  webhooks: WebhookConfig;
  /** Several API and worker replicas share this configuration: nothing may be generated per process. */
  clusterMode: boolean;
  uploads: UploadStoreConfig;
  /** Set when no variable names a provider: `npm start` then runs the development inbox and sends to it over SMTP. */
  devInbox?: DevInboxConfig;
  inbound: InboundConfig;
  submission: SubmissionConfig;
}

/** The inbound SMTP server (docs/inbound.md). */
export interface InboundConfig {
  port: number;
  /** Interface it listens on; undefined: every interface. */
  host?: string;
  /** Largest message accepted (552 beyond). */
  maxBytes: number;
  /** PEM file paths; both set: STARTTLS is offered. */
  tls?: { certFile: string; keyFile: string };
  /** Domain of the VERP return path; undefined: `bounces.` + the sender's domain. */
  bounceDomain?: string;
  /** The exchange of the MX records listed with sender domains. */
  mxHost: string;
}

/** The SMTP submission server (docs/smtp.md). */
export interface SubmissionConfig {
  /** STARTTLS port (587). */
  port: number;
  /** Implicit-TLS port (465); undefined: not listened on. */
  tlsPort?: number;
  /** Interface it listens on; undefined: every interface. */
  host?: string;
  /** Largest message accepted (552 beyond; advertised with SIZE). */
  maxBytes: number;
  /** PEM file paths; undefined: a self-signed pair generated under DATA_DIR. */
  tls?: { certFile: string; keyFile: string };
}

/** The local inbox of `npm start` (docs/providers.md). */
export interface DevInboxConfig {
  /** Loopback only: the inbox has no authentication and shows every message. */
  host: '127.0.0.1';
  smtpPort: number;
  webPort: number;
  /** What `email.smtp` becomes once the inbox runs. */
  smtp: { url: string; poolSize: number };
}

export type TransportName = 'log' | 'sendgrid' | 'smtp' | 'ses';

/** Where emails go (docs/providers.md). */
export interface EmailConfig {
  transport: TransportName;
  /**
   * Set by scripts/start.ts when the emails go to its development inbox: nothing leaves the
   * machine, so the sender-domain check is waived (senderCheckWaived). Never set from the environment.
   */
  localInbox?: boolean;
  sendgridApiKey?: string;
  sendgridApiUrl?: string;
  smtp?: { url: string; poolSize: number };
  ses: { region: string; endpoint?: string; accessKeyId?: string; secretAccessKey?: string; configurationSet?: string };
  /** Hosts (host or host:port) allowed to serve the certificate of an SNS notification; undefined: AWS's own. */
  snsCertHosts?: string[];
  /** PEM certificates those https fetches trust besides the system's CAs. */
  snsCertCa?: string;
  /** SNS topics whose messages are accepted; undefined: POST /webhooks/ses is off (404). */
  snsTopicArns?: string[];
  /** The DKIM selector of keys the service generates for its sender domains (SMTP signs with them). */
  dkimSelector: string;
  /** Encrypts stored DKIM private keys: ENCRYPTION_KEY, else JWT_SECRET. */
  encryptionKey: string;
  /** Deliveries per second per project unless its settings say otherwise. */
  sendRatePerSecond: number;
}

/** Outbound event webhooks (docs/webhooks.md); their durations are scaled by WORKFLOW_TIME_SCALE too. */
export interface WebhookConfig {
  /** How long a message is retried before it is marked FAILED. */
  retryHours: number;
  /** Requests per second one endpoint receives at most. */
  ratePerSecond: number;
}

/** Prometheus endpoints (docs/metrics.md). */
export interface MetricsConfig {
  /** When set, GET /metrics (and a worker's app metrics) need `Authorization: Bearer <token>`. */
  token?: string;
  /** A worker's Temporal SDK metrics (its runtime's own exporter) listen here. */
  workerAddress?: string;
  /** A worker's own counters (emails handed over, executions, ...) listen here. */
  workerAppAddress?: string;
}

/** Where uploaded images live: every API replica must see the same store. */
export type UploadStoreConfig =
  | { store: 'postgres' }
  | { store: 's3'; bucket: string; endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean };

/** The OpenID provider the dashboard's "Sign in with SSO" goes to (docs/security.md "Single sign-on"). */
export interface SsoConfig {
  /** Discovery reads `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Lower-cased email domains allowed to sign in; undefined: any domain the provider vouches for. */
  allowedDomains?: string[];
  /** The provider's name, shown beside the button (OIDC_NAME). */
  name?: string;
}

export interface OAuthProviderConfig {
  /** Lower-cased `<PROVIDER>` of the variable names. */
  id: string;
  clientId: string;
  clientSecret: string;
}

/** Stripe; billing is on when a secret key is configured. */
export interface BillingConfig {
  enabled: boolean;
  secretKey?: string;
  webhookSecret?: string;
  priceId?: string;
  /** Without a trailing slash. */
  apiUrl: string;
}

/**
 * When a project's bounce or complaint rate over the window is above these, it is suspended;
 * judged only once it sent `minSent` emails in the window.
 */
export interface SecurityConfig {
  windowHours: number;
  maxBounceRate: number;
  maxComplaintRate: number;
  minSent: number;
}

export interface CampaignConfig {
  /** Recipients per batch activity (and at most per provider call). */
  batchSize: number;
  /** Batches per workflow run before `continueAsNew`. */
  batchesPerRun: number;
  /** Batch activities one campaign keeps in flight. */
  batchLanes: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Shortest secret accepted from the persisted file, and from JWT_SECRET in production. */
export const MIN_JWT_SECRET_LENGTH = 32;

/**
 * The dashboard-cookie secret persists in DATA_DIR so sessions and unsubscribe links survive
 * restarts. Generated only when the file is absent: one that exists but is blank or short (a
 * truncated copy, an empty volume mount) would sign cookies anyone can forge, so it stops the start.
 */
function persistedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  let stored: string;
  try {
    stored = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError([`${file}: cannot read the JWT secret file (${(err as Error).message})`]);
    fs.mkdirSync(dataDir, { recursive: true });
    const secret = crypto.randomBytes(32).toString('base64url');
    fs.writeFileSync(file, secret, { mode: 0o600 });
    return secret;
  }
  if (stored.length < MIN_JWT_SECRET_LENGTH) {
    throw new ConfigError([
      `${file}: the JWT secret file is ${stored ? `shorter than ${MIN_JWT_SECRET_LENGTH} characters` : 'empty'}; delete it to generate a new secret (signed-in sessions and unsubscribe links made with the old one stop working) or set JWT_SECRET`,
    ]);
  }
  return stored;
}

/** A provider is listed only when both of its variables are set; the variable names carry its id. */
function oauthProviders(env: NodeJS.ProcessEnv): OAuthProviderConfig[] {
  const out: OAuthProviderConfig[] = [];
  for (const [key, value] of Object.entries(env)) {
    const m = OAUTH_CLIENT_ID.exec(key);
    const secret = m && env[`OAUTH_${m[1]}_CLIENT_SECRET`]?.trim();
    if (!m || !value?.trim() || !secret) continue;
    out.push({ id: m[1].toLowerCase(), clientId: value.trim(), clientSecret: secret });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * What authorizes our sending in a sender domain's SPF record. SendGrid and SES publish SPF records of
 * their own to include; an SMTP relay is named by its host (its address, when SMTP_URL gives one),
 * since a relay need not publish an SPF record an `include:` could name. SPF_INCLUDE overrides all.
 */
export function spfMechanism(include: string | undefined, transport: TransportName, smtpUrl: string | undefined): string {
  if (include) return `include:${include}`;
  if (transport === 'ses') return 'include:amazonses.com';
  if (transport === 'smtp' && smtpUrl) {
    const host = new URL(smtpUrl).hostname.replace(/^\[(.*)\]$/, '$1');
    return net.isIPv4(host) ? `ip4:${host}` : net.isIPv6(host) ? `ip6:${host}` : `a:${host}`;
  }
  return 'include:sendgrid.net';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'env'}: ${i.message}`));
  }
  const e = parsed.data;
  const problems: string[] = [];
  const transport: TransportName = e.EMAIL_TRANSPORT ?? (e.SENDGRID_API_KEY ? 'sendgrid' : e.SMTP_URL ? 'smtp' : 'log');
  if (transport === 'sendgrid' && !e.SENDGRID_API_KEY) problems.push('SENDGRID_API_KEY: required when EMAIL_TRANSPORT=sendgrid');
  if (transport === 'smtp' && !e.SMTP_URL) problems.push('SMTP_URL: required when EMAIL_TRANSPORT=smtp');
  if (!!e.SES_ACCESS_KEY_ID !== !!e.SES_SECRET_ACCESS_KEY) problems.push('SES_ACCESS_KEY_ID, SES_SECRET_ACCESS_KEY: set both or neither');
  // SNS signs every AWS account's topics alike: without the list, bounces and complaints could not be received safely at all.
  if (transport === 'ses' && !e.SNS_TOPIC_ARNS?.length && e.NODE_ENV === 'production') {
    problems.push('SNS_TOPIC_ARNS: required when EMAIL_TRANSPORT=ses in production (POST /webhooks/ses accepts notifications only from the listed topics)');
  }
  if (e.WORKER_METRICS_ADDRESS && e.WORKER_METRICS_ADDRESS === e.WORKER_APP_METRICS_ADDRESS) {
    problems.push('WORKER_APP_METRICS_ADDRESS: must differ from WORKER_METRICS_ADDRESS (the SDK exporter listens there)');
  }
  // A secret generated into one replica's DATA_DIR would sign cookies the other replicas refuse.
  if (e.CLUSTER_MODE && !e.JWT_SECRET) problems.push('JWT_SECRET: required when CLUSTER_MODE=true (every replica must share one secret)');
  if (e.NODE_ENV === 'production' && e.JWT_SECRET !== undefined && e.JWT_SECRET.trim().length < MIN_JWT_SECRET_LENGTH) {
    problems.push(`JWT_SECRET: must be at least ${MIN_JWT_SECRET_LENGTH} characters when NODE_ENV=production`);
  }
  if (e.UPLOAD_STORE === 's3' && !e.S3_BUCKET) problems.push('S3_BUCKET: required when UPLOAD_STORE=s3');
  if (!!e.S3_ACCESS_KEY_ID !== !!e.S3_SECRET_ACCESS_KEY) problems.push('S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither');
  if (!!e.INBOUND_TLS_CERT !== !!e.INBOUND_TLS_KEY) problems.push('INBOUND_TLS_CERT, INBOUND_TLS_KEY: set both or neither');
  if (!!e.SUBMISSION_TLS_CERT !== !!e.SUBMISSION_TLS_KEY) problems.push('SUBMISSION_TLS_CERT, SUBMISSION_TLS_KEY: set both or neither');
  const oidcSet = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (oidcSet > 0 && oidcSet < 3) {
    problems.push('OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: set all three (single sign-on on) or none (off)');
  }
  if (!oidcSet && (e.OIDC_ALLOWED_DOMAINS || e.OIDC_NAME))
    problems.push('OIDC_ALLOWED_DOMAINS, OIDC_NAME: need OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET');
  if (problems.length) throw new ConfigError(problems);
  const jwtSecret = e.JWT_SECRET ?? persistedSecret(e.DATA_DIR);
  return {
    port: e.PORT,
    apiHost: e.API_HOST,
    databaseUrl: e.DATABASE_URL,
    dbStatementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
    databaseReplicaUrls: e.DATABASE_REPLICA_URL ?? [],
    replicaMaxLagMs: e.REPLICA_MAX_LAG_MS,
    countEstimateThreshold: e.COUNT_ESTIMATE_THRESHOLD,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://localhost:${e.TEMPORAL_UI_PORT}`).replace(/\/+$/, ''),
      port: e.TEMPORAL_PORT,
      maxCachedWorkflows: e.TEMPORAL_MAX_CACHED_WORKFLOWS,
      workflowBundle: e.WORKFLOW_BUNDLE,
    },
    email: {
      transport,
      sendgridApiKey: e.SENDGRID_API_KEY,
      sendgridApiUrl: e.SENDGRID_API_URL,
      smtp: e.SMTP_URL ? { url: e.SMTP_URL, poolSize: e.SMTP_POOL_SIZE } : undefined,
      ses: {
        region: e.SES_REGION,
        endpoint: e.SES_ENDPOINT,
        accessKeyId: e.SES_ACCESS_KEY_ID,
        secretAccessKey: e.SES_SECRET_ACCESS_KEY,
        configurationSet: e.SES_CONFIGURATION_SET,
      },
      snsCertHosts: e.SNS_CERT_HOSTS,
      snsCertCa: e.SNS_CERT_CA,
      snsTopicArns: e.SNS_TOPIC_ARNS?.length ? e.SNS_TOPIC_ARNS : undefined,
      dkimSelector: e.DKIM_SELECTOR,
      encryptionKey: e.ENCRYPTION_KEY ?? jwtSecret,
      sendRatePerSecond: e.SEND_RATE_PER_SECOND,
    },
    dnsServers: e.DNS_SERVERS,
    appUrl: (e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    trackingUrl: (e.TRACKING_URL ?? e.APP_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    trackingLinkDays: e.TRACKING_LINK_DAYS,
    dashboardOrigins: [...new Set([new URL(e.APP_URL ?? `http://localhost:${e.PORT}`).origin, ...(e.DASHBOARD_ORIGINS ?? [])])],
    jwtSecret,
    disableSignups: e.DISABLE_SIGNUPS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitPublicShare: e.RATE_LIMIT_PUBLIC_SHARE,
    authRateLimitPerMinute: e.AUTH_RATE_LIMIT_PER_MINUTE,
    forms: { perAddressPerMinute: e.FORM_RATE_LIMIT_PER_MINUTE, perFormPerMinute: e.FORM_SUBMISSIONS_PER_MINUTE },
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    spfMechanism: spfMechanism(e.SPF_INCLUDE, transport, e.SMTP_URL),
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    systemEmailFrom: e.SYSTEM_EMAIL_FROM,
    sendgridWebhookPublicKey: e.SENDGRID_WEBHOOK_PUBLIC_KEY,
    oauthProviders: oauthProviders(env),
    sso:
      e.OIDC_ISSUER && e.OIDC_CLIENT_ID && e.OIDC_CLIENT_SECRET
        ? {
            issuer: e.OIDC_ISSUER,
            clientId: e.OIDC_CLIENT_ID,
            clientSecret: e.OIDC_CLIENT_SECRET,
            allowedDomains: e.OIDC_ALLOWED_DOMAINS?.length ? e.OIDC_ALLOWED_DOMAINS : undefined,
            name: e.OIDC_NAME,
          }
        : undefined,
    billing: {
      enabled: !!e.STRIPE_SECRET_KEY,
      secretKey: e.STRIPE_SECRET_KEY,
      webhookSecret: e.STRIPE_WEBHOOK_SECRET,
      priceId: e.STRIPE_PRICE_ID,
      apiUrl: e.STRIPE_API_URL.replace(/\/+$/, ''),
    },
    security: {
      windowHours: e.SECURITY_WINDOW_HOURS,
      maxBounceRate: e.SECURITY_MAX_BOUNCE_RATE,
      maxComplaintRate: e.SECURITY_MAX_COMPLAINT_RATE,
      minSent: e.SECURITY_MIN_SENT,
    },
    campaigns: { batchSize: e.CAMPAIGN_BATCH_SIZE, batchesPerRun: e.CAMPAIGN_BATCHES_PER_RUN, batchLanes: e.CAMPAIGN_BATCH_LANES },
    imports: { lanes: e.IMPORT_LANES },
    segments: { computeLanes: e.SEGMENT_COMPUTE_LANES },
    workflows: { timeScale: e.WORKFLOW_TIME_SCALE },
    metrics: { token: e.METRICS_TOKEN, workerAddress: e.WORKER_METRICS_ADDRESS, workerAppAddress: e.WORKER_APP_METRICS_ADDRESS },
    webhooks: { retryHours: e.WEBHOOK_RETRY_HOURS, ratePerSecond: e.WEBHOOK_ENDPOINT_RATE_PER_SECOND },
    clusterMode: e.CLUSTER_MODE,
    devInbox:
      e.EMAIL_TRANSPORT || e.SENDGRID_API_KEY || e.SMTP_URL
        ? undefined
        : {
            host: '127.0.0.1',
            smtpPort: e.DEV_INBOX_SMTP_PORT,
            webPort: e.DEV_INBOX_WEB_PORT,
            smtp: { url: `smtp://127.0.0.1:${e.DEV_INBOX_SMTP_PORT}`, poolSize: e.SMTP_POOL_SIZE },
          },
    uploads:
      e.UPLOAD_STORE === 's3'
        ? {
            store: 's3',
            bucket: e.S3_BUCKET!,
            endpoint: e.S3_ENDPOINT,
            region: e.S3_REGION,
            accessKeyId: e.S3_ACCESS_KEY_ID,
            secretAccessKey: e.S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.S3_FORCE_PATH_STYLE,
          }
        : { store: 'postgres' },
    inbound: {
      port: e.INBOUND_SMTP_PORT,
      host: e.INBOUND_SMTP_HOST ?? (e.NODE_ENV === 'production' ? undefined : '127.0.0.1'),
      maxBytes: e.INBOUND_MAX_BYTES,
      tls: e.INBOUND_TLS_CERT && e.INBOUND_TLS_KEY ? { certFile: e.INBOUND_TLS_CERT, keyFile: e.INBOUND_TLS_KEY } : undefined,
      bounceDomain: e.BOUNCE_DOMAIN,
      mxHost: e.INBOUND_MX_HOST ?? new URL(e.APP_URL ?? `http://localhost:${e.PORT}`).hostname,
    },
    submission: {
      port: e.SUBMISSION_PORT,
      tlsPort: e.SUBMISSION_TLS_PORT,
      host: e.SUBMISSION_HOST ?? (e.NODE_ENV === 'production' ? undefined : '127.0.0.1'),
      maxBytes: e.SUBMISSION_MAX_BYTES,
      tls: e.SUBMISSION_TLS_CERT && e.SUBMISSION_TLS_KEY ? { certFile: e.SUBMISSION_TLS_CERT, keyFile: e.SUBMISSION_TLS_KEY } : undefined,
    },
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

/**
 * "A first email in five minutes": while every email goes to the local development inbox, no domain
 * can be spoofed and no DNS can be published, so sends, templates, campaigns and workflow steps skip
 * the sender-domain check (services/senderCheck.ts, activities/steps/sendEmail.ts). Any real transport keeps it.
 */
export const senderCheckWaived = (config: { email: Pick<EmailConfig, 'localInbox'> }): boolean => config.email.localInbox === true;
