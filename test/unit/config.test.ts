import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, ENV_VARIABLES, loadConfig, loadConfigOrExit, OAUTH_VARIABLES } from '../../lib/config';

// A fixed secret keeps loadConfig from generating one into DATA_DIR.
const base = { JWT_SECRET: 'x'.repeat(32) };
const load = (env: Record<string, string> = {}) => loadConfig({ ...base, ...env });

function problems(env: Record<string, string>): string[] {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('configuration was accepted');
}

const { publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const derBase64 = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = load();
    expect(c.temporal.maxCachedWorkflows).toBe(100);
    expect(c.systemEmailFrom).toBe('no-reply@localhost');
    expect(c.sendgridWebhookPublicKey).toBeUndefined();
    expect(c.oauthProviders).toEqual([]);
    expect(c.billing).toEqual({ enabled: false, secretKey: undefined, webhookSecret: undefined, priceId: undefined, apiUrl: 'https://api.stripe.com' });
    expect(c.security).toEqual({ windowHours: 168, maxBounceRate: 0.05, maxComplaintRate: 0.003, minSent: 100 });
    expect(c.campaigns).toEqual({ batchSize: 1000, batchesPerRun: 50, batchLanes: 3 });
    expect(c.imports).toEqual({ lanes: 2 });
    expect(c.segments).toEqual({ computeLanes: 2 });
    expect(c.workflows).toEqual({ timeScale: 1 });
    expect(c.metrics).toEqual({ token: undefined, workerAddress: undefined, workerAppAddress: undefined });
    expect(c.webhooks).toEqual({ retryHours: 24, ratePerSecond: 50 });
    expect(c.rateLimitPublicShare).toBe(0.5);
  });

  it('reads every variable', () => {
    const c = load({
      TEMPORAL_MAX_CACHED_WORKFLOWS: '0',
      SYSTEM_EMAIL_FROM: ' accounts@example.com ',
      SENDGRID_WEBHOOK_PUBLIC_KEY: derBase64,
      SECURITY_WINDOW_HOURS: '24',
      SECURITY_MAX_BOUNCE_RATE: '0.1',
      SECURITY_MAX_COMPLAINT_RATE: '0',
      SECURITY_MIN_SENT: '5',
      WORKFLOW_TIME_SCALE: '0.00001',
      CAMPAIGN_BATCH_SIZE: '100',
      CAMPAIGN_BATCHES_PER_RUN: '10',
      CAMPAIGN_BATCH_LANES: '5',
      IMPORT_LANES: '4',
      SEGMENT_COMPUTE_LANES: '3',
      WEBHOOK_RETRY_HOURS: '0.5',
      WEBHOOK_ENDPOINT_RATE_PER_SECOND: '200',
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      STRIPE_PRICE_ID: 'price_1',
      STRIPE_API_URL: 'http://127.0.0.1:9999/',
      OAUTH_GOOGLE_CLIENT_ID: ' g-id ',
      OAUTH_GOOGLE_CLIENT_SECRET: 'g-secret',
      OAUTH_GITHUB_CLIENT_ID: 'gh-id',
      OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
      METRICS_TOKEN: ' scrape-me ',
      WORKER_METRICS_ADDRESS: '0.0.0.0:9464',
      WORKER_APP_METRICS_ADDRESS: '[::1]:9465',
      RATE_LIMIT_PUBLIC_SHARE: '1',
      AUTH_RATE_LIMIT_PER_MINUTE: '7',
    });
    expect(c.rateLimitPublicShare).toBe(1);
    expect(load({ RATE_LIMIT_PUBLIC_SHARE: '0.1' }).rateLimitPublicShare).toBe(0.1);
    expect(problems({ RATE_LIMIT_PUBLIC_SHARE: '1.5' })).toEqual(['RATE_LIMIT_PUBLIC_SHARE: must be a share above 0 and at most 1 (0.5 = half)']);
    expect(c.authRateLimitPerMinute).toBe(7);
    expect(c.temporal.maxCachedWorkflows).toBe(0);
    expect(c.systemEmailFrom).toBe('accounts@example.com');
    expect(c.webhooks).toEqual({ retryHours: 0.5, ratePerSecond: 200 });
    expect(c.sendgridWebhookPublicKey).toBe(derBase64);
    expect(c.security).toEqual({ windowHours: 24, maxBounceRate: 0.1, maxComplaintRate: 0, minSent: 5 });
    expect(c.workflows.timeScale).toBe(0.00001);
    expect(c.campaigns).toEqual({ batchSize: 100, batchesPerRun: 10, batchLanes: 5 });
    expect(c.imports).toEqual({ lanes: 4 });
    expect(c.segments).toEqual({ computeLanes: 3 });
    expect(c.billing).toEqual({ enabled: true, secretKey: 'sk_test_1', webhookSecret: 'whsec_1', priceId: 'price_1', apiUrl: 'http://127.0.0.1:9999' });
    expect(c.oauthProviders).toEqual([
      { id: 'github', clientId: 'gh-id', clientSecret: 'gh-secret' },
      { id: 'google', clientId: 'g-id', clientSecret: 'g-secret' },
    ]);
    expect(c.metrics).toEqual({ token: 'scrape-me', workerAddress: '0.0.0.0:9464', workerAppAddress: '[::1]:9465' });
    expect(load({ SENDGRID_WEBHOOK_PUBLIC_KEY: pem }).sendgridWebhookPublicKey).toBe(pem.trim());
  });

  it("allows APP_URL's origin and DASHBOARD_ORIGINS to make cookie writes", () => {
    expect(load({ PORT: '4000' }).dashboardOrigins).toEqual(['http://localhost:4000']);
    expect(load({ DASHBOARD_ORIGINS: ' ' }).dashboardOrigins).toEqual(['http://localhost:3000']);
    const c = load({
      APP_URL: 'https://mail.example.com/base/',
      DASHBOARD_ORIGINS: 'https://App.Example.com/, http://localhost:5173,https://mail.example.com',
    });
    expect(c.dashboardOrigins).toEqual(['https://mail.example.com', 'https://app.example.com', 'http://localhost:5173']);
    for (const bad of ['app.example.com', 'ftp://files.example.com']) {
      expect(problems({ DASHBOARD_ORIGINS: `https://ok.example.com,${bad}` })).toEqual([
        'DASHBOARD_ORIGINS.1: must be a comma-separated list of http(s) origins, like https://app.example.com',
      ]);
    }
  });

  it('puts tracking URLs under TRACKING_URL, else APP_URL, else the local address', () => {
    expect(load({ PORT: '4000' }).trackingUrl).toBe('http://localhost:4000');
    expect(load({ APP_URL: 'https://mail.example.com/' }).trackingUrl).toBe('https://mail.example.com');
    expect(load({ APP_URL: 'https://mail.example.com', TRACKING_URL: 'https://t.example.com/' }).trackingUrl).toBe('https://t.example.com');
    expect(load({ APP_URL: 'https://mail.example.com', TRACKING_URL: ' ' }).trackingUrl).toBe('https://mail.example.com');
    expect(problems({ TRACKING_URL: 'not a url' })).toHaveLength(1);
  });

  it('lists an OAuth provider only when both its client id and secret are set', () => {
    expect(load({ OAUTH_GOOGLE_CLIENT_ID: 'half' }).oauthProviders).toEqual([]);
    expect(load({ OAUTH_GOOGLE_CLIENT_SECRET: 'half' }).oauthProviders).toEqual([]);
    expect(load({ OAUTH_GOOGLE_CLIENT_ID: 'g', OAUTH_GOOGLE_CLIENT_SECRET: ' ' }).oauthProviders).toEqual([]);
  });

  describe('single sign-on (OIDC_*)', () => {
    const oidc = { OIDC_ISSUER: 'https://login.example.com', OIDC_CLIENT_ID: 'svc', OIDC_CLIENT_SECRET: 's3cret' };

    it('is off by default, and on with all three of issuer, client id and secret', () => {
      expect(load().sso).toBeUndefined();
      expect(load(oidc).sso).toEqual({
        issuer: 'https://login.example.com',
        clientId: 'svc',
        clientSecret: 's3cret',
        allowedDomains: undefined,
        name: undefined,
      });
      expect(load({ ...oidc, OIDC_ALLOWED_DOMAINS: ' Example.com, @example.org ,', OIDC_NAME: ' Okta ' }).sso).toMatchObject({
        allowedDomains: ['example.com', 'example.org'],
        name: 'Okta',
      });
      expect(load({ OIDC_ISSUER: ' ', OIDC_CLIENT_ID: '', OIDC_CLIENT_SECRET: '' }).sso).toBeUndefined();
    });

    it('refuses to start with only some of the three, naming them', () => {
      const partial = 'OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: set all three (single sign-on on) or none (off)';
      expect(problems({ OIDC_ISSUER: oidc.OIDC_ISSUER })).toEqual([partial]);
      expect(problems({ OIDC_CLIENT_ID: 'svc', OIDC_CLIENT_SECRET: 's3cret' })).toEqual([partial]);
      expect(problems({ ...oidc, OIDC_CLIENT_SECRET: ' ' })).toEqual([partial]);
      expect(problems({ OIDC_ALLOWED_DOMAINS: 'example.com' })).toEqual([
        'OIDC_ALLOWED_DOMAINS, OIDC_NAME: need OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET',
      ]);
    });

    it('takes an https issuer, or http on this machine only', () => {
      expect(load({ ...oidc, OIDC_ISSUER: 'http://127.0.0.1:9000' }).sso?.issuer).toBe('http://127.0.0.1:9000');
      expect(load({ ...oidc, OIDC_ISSUER: 'http://localhost:9000/realms/x' }).sso?.issuer).toBe('http://localhost:9000/realms/x');
      expect(problems({ ...oidc, OIDC_ISSUER: 'http://login.example.com' })).toEqual(['OIDC_ISSUER: must use https (http only for localhost)']);
      expect(problems({ ...oidc, OIDC_ISSUER: 'login.example.com' })).toEqual([
        'OIDC_ISSUER: must be the URL of an OpenID provider, like https://login.example.com',
      ]);
      expect(problems({ ...oidc, OIDC_ALLOWED_DOMAINS: 'example.com, not a domain' })).toEqual([
        'OIDC_ALLOWED_DOMAINS.1: must be a comma-separated list of email domains, like example.com,example.org',
      ]);
    });
  });

  it('treats blank values of these variables as unset', () => {
    const c = load({
      SYSTEM_EMAIL_FROM: '',
      SENDGRID_WEBHOOK_PUBLIC_KEY: '  ',
      STRIPE_SECRET_KEY: '',
      STRIPE_API_URL: '',
      WORKFLOW_TIME_SCALE: '',
      CAMPAIGN_BATCH_SIZE: '',
      METRICS_TOKEN: ' ',
      WORKER_METRICS_ADDRESS: '',
    });
    expect(c.metrics).toEqual({ token: undefined, workerAddress: undefined, workerAppAddress: undefined });
    expect(c.systemEmailFrom).toBe('no-reply@localhost');
    expect(c.sendgridWebhookPublicKey).toBeUndefined();
    expect(c.billing.enabled).toBe(false);
    expect(c.billing.apiUrl).toBe('https://api.stripe.com');
    expect(c.workflows.timeScale).toBe(1);
    expect(c.campaigns.batchSize).toBe(1000);
  });

  it('rejects invalid values with exactly one line per problem, naming the variable', () => {
    const got = problems({
      TEMPORAL_MAX_CACHED_WORKFLOWS: '-1',
      SYSTEM_EMAIL_FROM: 'Acme <no-reply@acme.example>',
      SENDGRID_WEBHOOK_PUBLIC_KEY: 'bm90IGEga2V5',
      SECURITY_WINDOW_HOURS: '0',
      SECURITY_MAX_BOUNCE_RATE: '5',
      SECURITY_MAX_COMPLAINT_RATE: 'lots',
      SECURITY_MIN_SENT: '2.5',
      WORKFLOW_TIME_SCALE: '-0.5',
      WEBHOOK_RETRY_HOURS: '0',
      WEBHOOK_ENDPOINT_RATE_PER_SECOND: '0.5',
      CAMPAIGN_BATCH_SIZE: '5000',
      CAMPAIGN_BATCHES_PER_RUN: '0',
      CAMPAIGN_BATCH_LANES: '17',
      IMPORT_LANES: '0',
      SEGMENT_COMPUTE_LANES: '17',
      STRIPE_API_URL: 'not a url',
      WORKER_METRICS_ADDRESS: '9464',
      WORKER_APP_METRICS_ADDRESS: 'localhost:70000',
      RATE_LIMIT_PUBLIC_SHARE: '0',
    });
    expect(got.sort()).toEqual(
      [
        'CAMPAIGN_BATCHES_PER_RUN: must be an integer of at least 1',
        'CAMPAIGN_BATCH_LANES: must be an integer from 1 to 16',
        'CAMPAIGN_BATCH_SIZE: must be an integer from 1 to 1000',
        'IMPORT_LANES: must be an integer from 1 to 16',
        'SEGMENT_COMPUTE_LANES: must be an integer from 1 to 16',
        'SECURITY_MAX_BOUNCE_RATE: must be a rate from 0 to 1 (0.05 = 5 %)',
        'SECURITY_MAX_COMPLAINT_RATE: must be a rate from 0 to 1 (0.05 = 5 %)',
        'SECURITY_MIN_SENT: must be an integer of at least 1',
        'SECURITY_WINDOW_HOURS: must be a positive number',
        'SENDGRID_WEBHOOK_PUBLIC_KEY: must be a public key: the base64 DER string SendGrid shows, or a PEM',
        'STRIPE_API_URL: must be a URL',
        'SYSTEM_EMAIL_FROM: must be a bare email address, like no-reply@example.com',
        'TEMPORAL_MAX_CACHED_WORKFLOWS: must be an integer of at least 0',
        'WORKFLOW_TIME_SCALE: must be a positive number',
        'WORKER_METRICS_ADDRESS: must be host:port, like 0.0.0.0:9464',
        'WORKER_APP_METRICS_ADDRESS: must be host:port, like 0.0.0.0:9464',
        'WEBHOOK_RETRY_HOURS: must be a positive number',
        'WEBHOOK_ENDPOINT_RATE_PER_SECOND: must be a number of at least 1',
        'RATE_LIMIT_PUBLIC_SHARE: must be a share above 0 and at most 1 (0.5 = half)',
      ].sort(),
    );
  });

  it("refuses EMAIL_TRANSPORT=ses in production without SNS_TOPIC_ARNS: SNS signs every AWS account's topics alike", () => {
    expect(problems({ NODE_ENV: 'production', EMAIL_TRANSPORT: 'ses' })).toEqual([
      'SNS_TOPIC_ARNS: required when EMAIL_TRANSPORT=ses in production (POST /webhooks/ses accepts notifications only from the listed topics)',
    ]);
    expect(problems({ NODE_ENV: 'production', EMAIL_TRANSPORT: 'ses', SNS_TOPIC_ARNS: ' , ' })).toHaveLength(1);
    const topic = 'arn:aws:sns:eu-west-1:123456789012:ses-events';
    expect(load({ NODE_ENV: 'production', EMAIL_TRANSPORT: 'ses', SNS_TOPIC_ARNS: topic }).email.snsTopicArns).toEqual([topic]);
    // In development the endpoint is simply off until the topics are named.
    expect(load({ EMAIL_TRANSPORT: 'ses' }).email.snsTopicArns).toBeUndefined();
  });

  it('refuses one address for both worker metrics endpoints', () => {
    expect(problems({ WORKER_METRICS_ADDRESS: '0.0.0.0:9464', WORKER_APP_METRICS_ADDRESS: '0.0.0.0:9464' })).toEqual([
      'WORKER_APP_METRICS_ADDRESS: must differ from WORKER_METRICS_ADDRESS (the SDK exporter listens there)',
    ]);
  });

  it('stops the process at start with one stderr line per problem', () => {
    const lines: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const exit = jest.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    try {
      expect(() => loadConfigOrExit({ ...base, CAMPAIGN_BATCH_SIZE: '0', WORKFLOW_TIME_SCALE: 'fast' })).toThrow('exit 1');
    } finally {
      write.mockRestore();
      exit.mockRestore();
    }
    expect(lines.sort()).toEqual([
      'config error: CAMPAIGN_BATCH_SIZE: must be an integer from 1 to 1000\n',
      'config error: WORKFLOW_TIME_SCALE: must be a positive number\n',
    ]);
  });
});

describe('cluster mode and the upload store', () => {
  it('refuses a generated JWT_SECRET in cluster mode: each replica would sign with its own', () => {
    expect(() => loadConfig({ CLUSTER_MODE: 'true', DATA_DIR: '/nonexistent' })).toThrow(ConfigError);
    try {
      loadConfig({ CLUSTER_MODE: 'true' });
    } catch (err) {
      expect((err as ConfigError).problems).toEqual(['JWT_SECRET: required when CLUSTER_MODE=true (every replica must share one secret)']);
    }
    expect(load({ CLUSTER_MODE: 'true' }).clusterMode).toBe(true);
    expect(load().clusterMode).toBe(false);
  });

  it('stores uploads in Postgres by default and in a bucket when configured', () => {
    expect(load().uploads).toEqual({ store: 'postgres' });
    expect(
      load({
        UPLOAD_STORE: 's3',
        S3_BUCKET: 'img',
        S3_ENDPOINT: 'http://127.0.0.1:9000',
        S3_ACCESS_KEY_ID: 'k',
        S3_SECRET_ACCESS_KEY: 's',
        S3_FORCE_PATH_STYLE: 'true',
      }).uploads,
    ).toEqual({
      store: 's3',
      bucket: 'img',
      endpoint: 'http://127.0.0.1:9000',
      region: 'us-east-1',
      accessKeyId: 'k',
      secretAccessKey: 's',
      forcePathStyle: true,
    });
    expect(problems({ UPLOAD_STORE: 's3', S3_ACCESS_KEY_ID: 'k' }).sort()).toEqual([
      'S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: set both or neither',
      'S3_BUCKET: required when UPLOAD_STORE=s3',
    ]);
    expect(problems({ UPLOAD_STORE: 'disk' })).toHaveLength(1);
  });
});

describe('the JWT secret', () => {
  const dataDir = () => fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'jwt-secret-'));
  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    throw new Error('configuration was accepted');
  };

  it('generates a secret into DATA_DIR when the file is absent, and reads it back', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).jwtSecret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(fs.readFileSync(path.join(dir, 'jwt-secret'), 'utf8')).toBe(first);
    expect(loadConfig({ DATA_DIR: dir }).jwtSecret).toBe(first);
  });

  it.each([
    ['empty', '', 'empty'],
    ['whitespace only', ' \n\t \n', 'empty'],
    ['short', 'abc123\n', 'shorter than 32 characters'],
  ])('refuses to start with a persisted secret file that is %s, naming the file, and leaves it alone', (_name, content, says) => {
    const dir = dataDir();
    const file = path.join(dir, 'jwt-secret');
    fs.writeFileSync(file, content);
    const found = refusal({ DATA_DIR: dir });
    expect(found).toHaveLength(1);
    expect(found[0]).toContain(file);
    expect(found[0]).toContain(says);
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
  });

  it('refuses a JWT_SECRET shorter than 32 characters in production only', () => {
    expect(refusal({ NODE_ENV: 'production', JWT_SECRET: 'y'.repeat(31) })).toEqual(['JWT_SECRET: must be at least 32 characters when NODE_ENV=production']);
    expect(refusal({ NODE_ENV: 'production', JWT_SECRET: ' '.repeat(40) })).toEqual(['JWT_SECRET: must be at least 32 characters when NODE_ENV=production']);
    expect(loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'y'.repeat(32) }).jwtSecret).toBe('y'.repeat(32));
    expect(loadConfig({ JWT_SECRET: 'y'.repeat(16) }).jwtSecret).toBe('y'.repeat(16));
  });
});

describe('README configuration table', () => {
  it('lists exactly the variables lib/config.ts accepts', () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
    const listed = section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...line.split('|')[1].matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    expect([...listed].sort()).toEqual([...ENV_VARIABLES, ...OAUTH_VARIABLES].sort());
  });
});

describe('TEMPORAL_UI_URL', () => {
  it("defaults to the dev server's UI on TEMPORAL_UI_PORT, and takes a cluster's", () => {
    expect(load().temporal.uiUrl).toBe('http://localhost:8233');
    expect(load({ TEMPORAL_UI_PORT: '9000' }).temporal.uiUrl).toBe('http://localhost:9000');
    expect(load({ TEMPORAL_UI_URL: 'https://temporal.example.com/' }).temporal.uiUrl).toBe('https://temporal.example.com');
    expect(() => load({ TEMPORAL_UI_URL: 'not a url' })).toThrow(ConfigError);
  });
});

describe('DATABASE_REPLICA_URL', () => {
  it('takes one or more comma-separated URLs; blank means none; anything else is refused', () => {
    expect(load().databaseReplicaUrls).toEqual([]);
    expect(load({ DATABASE_REPLICA_URL: ' ' }).databaseReplicaUrls).toEqual([]);
    expect(load({ DATABASE_REPLICA_URL: 'postgres://r1/svc, postgres://r2:5433/svc' }).databaseReplicaUrls).toEqual([
      'postgres://r1/svc',
      'postgres://r2:5433/svc',
    ]);
    expect(() => load({ DATABASE_REPLICA_URL: 'replica-host' })).toThrow(ConfigError);
    expect(load().replicaMaxLagMs).toBe(2000);
    expect(() => load({ REPLICA_MAX_LAG_MS: '-1' })).toThrow(ConfigError);
  });
});
