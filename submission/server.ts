import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { type Config, senderCheckWaived } from '../lib/config';
import type { Logger } from '../lib/logger';
import { DomainError } from '../lib/domainErrors';
import type { TemporalGateway } from '../services/temporal';
import type { Runtime } from '../services/runtime';
import { sendEmails } from '../services/send';
import { senderAllowed } from '../services/senderCheck';
import { findProjectByIdCounting } from '../db/projects';
import { rateLimitResult, windowStartOf } from '../db/rateLimit';
import { isSuppressed } from '../db/suppressions';
import { countIpAttempt, ipAttemptsExhausted } from '../db/authThrottle';
import { projectOfPassword } from './authenticate';
import { readSubmittedMessage } from './message';
import { oncePerMessageId } from './idempotency';
import { submissionTls, type TlsPair } from './tls';

/**
 * The SMTP submission server (docs/smtp.md): `npm start` runs it beside the API, `npm run submission`
 * alone. Apps that speak only SMTP log in with an API key (AUTH PLAIN/LOGIN, only over TLS) and
 * send; every message takes POST /v1/send's path (services/send.ts `sendEmails`): the verified
 * sender, suppression, the project's rate limit and send throttle, tracking, the header policy.
 * The rows are committed before the 250, so a crash after it loses nothing (the maintenance sweep
 * starts what the hand-over did not).
 */

export interface SubmissionDeps {
  config: Config;
  knex: Knex;
  temporal: TemporalGateway;
  log: Logger;
  /** The process's collaborators (services/runtime.ts): /v1/send's delivery batches and event hand-off. */
  runtime: Pick<Runtime, 'deliveries' | 'events'>;
}

export interface SubmissionServer {
  /** The STARTTLS port. */
  port: number;
  /** The implicit-TLS port, when listened on. */
  tlsPort?: number;
  close(): Promise<void>;
}

/** /v1/send's recipient cap (api/schemas/send.ts). */
const MAX_RECIPIENTS = 100;

/** An SMTP reply: smtp-server sends `responseCode` and the message (which carries the enhanced status code). */
const reply = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });
/** Postgres (or anything under it) failed: the client keeps the message and tries again later. */
const unavailable = () => reply(421, '4.3.0 service temporarily unavailable; try again later');

/** The answer to a rule of /v1/send the message broke (the API's 4xx). */
function refusalOf(err: DomainError): Error {
  switch (err.kind) {
    case 'forbidden':
      return reply(550, `5.7.1 ${err.message}`);
    case 'limit_reached':
      return err.extra.retryAfterSeconds ? reply(452, `4.7.0 ${err.message}`) : reply(550, `5.7.1 ${err.message}`);
    default:
      return reply(550, `5.6.0 ${err.message}`);
  }
}

const projectOf = (session: SMTPServerSession) => session.user as string;

export async function startSubmissionServer(
  deps: SubmissionDeps,
  opts: { port?: number; tlsPort?: number | null; host?: string; tls?: TlsPair } = {},
): Promise<SubmissionServer> {
  const { config, knex, log } = deps;
  const { maxBytes } = config.submission;
  const tls = opts.tls ?? (await submissionTls(config, log));
  const authLimit = config.authRateLimitPerMinute;

  const options: SMTPServerOptions = {
    name: os.hostname(),
    banner: 'mail submission; log in with an API key',
    size: maxBytes,
    key: tls.key,
    cert: tls.cert,
    authMethods: ['PLAIN', 'LOGIN'],
    // AUTH before STARTTLS is refused (538); so is MAIL before AUTH (530).
    allowInsecureAuth: false,
    authOptional: false,
    disableReverseLookup: true,
    maxClients: 500,
    socketTimeout: 60_000,
    closeTimeout: 5_000,
    logger: false,

    onAuth(auth, session, callback) {
      // Failed logins are counted per client address as the sign-in route counts them (db/authThrottle.ts),
      // in a bucket of their own: only failures count, so an app that logs in per message is never slowed.
      const client = `smtp:${session.remoteAddress}`;
      (async () => {
        const exhausted = await ipAttemptsExhausted(knex, client, authLimit);
        if (!exhausted.allowed) return reply(454, `4.7.0 too many failed logins from your address; try again in ${exhausted.retryAfterSeconds} seconds`);
        const project = await projectOfPassword(knex, auth.password ?? '');
        if (project) return project.id;
        await countIpAttempt(knex, client, authLimit);
        return reply(535, '5.7.8 authentication failed: the password must be a secret API key (sk_…) of an enabled project');
      })().then(
        (outcome) => (typeof outcome === 'string' ? callback(null, { user: outcome }) : callback(outcome)),
        (err) => {
          log.warn({ err }, 'submission: login failed for want of the database');
          callback(unavailable());
        },
      );
    },

    onMailFrom(address, session, callback) {
      const projectId = projectOf(session);
      (async () => {
        // One message is one request against the project's rate limit, as one POST /v1/send is.
        const now = Date.now();
        const counted = await findProjectByIdCounting(knex, projectId, new Date(windowStartOf(now)));
        if (!counted || counted.project.disabled) return reply(550, '5.7.1 this project is disabled');
        const rate = rateLimitResult(counted.count, config.rateLimitPerMinute, now);
        if (!rate.allowed) return reply(452, `4.7.0 rate limit of ${rate.limit} per minute reached; try again in ${rate.resetSeconds} seconds`);
        if (!(await senderAllowed(knex, projectId, address.address, senderCheckWaived(config)))) {
          const domain = address.address.slice(address.address.lastIndexOf('@') + 1);
          return reply(550, `5.7.1 the sender domain ${domain || '(none)'} is not verified for this project`);
        }
        return null;
      })().then(
        (refusal) => callback(refusal ?? undefined),
        (err) => {
          log.warn({ err }, 'submission: MAIL FROM checks failed');
          callback(unavailable());
        },
      );
    },

    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) return callback(reply(452, `4.5.3 at most ${MAX_RECIPIENTS} recipients per message`));
      isSuppressed(knex, projectOf(session), address.address).then(
        (suppressed) => callback(suppressed ? reply(550, `5.7.1 <${address.address.slice(0, 320)}> is on this project's suppression list`) : undefined),
        (err) => {
          log.warn({ err }, 'submission: suppression check failed');
          callback(unavailable());
        },
      );
    },

    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        // Past the cap the rest is drained, not kept: the answer is 552 anyway.
        size += chunk.length;
        if (size <= maxBytes) chunks.push(chunk);
      });
      stream.on('end', () => {
        if (stream.sizeExceeded || size > maxBytes) return callback(reply(552, `5.3.4 message larger than ${maxBytes} bytes`));
        const projectId = projectOf(session);
        const envelope = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          rcptTo: session.envelope.rcptTo.map((a) => a.address),
        };
        (async () => {
          const message = await readSubmittedMessage(Buffer.concat(chunks), envelope);
          return oncePerMessageId(knex, projectId, message.messageId, config.idempotencyTtlHours, () => sendEmails(deps, projectId, message.request));
        })().then(
          (outcome) => {
            // Committed (sendEmails returns once the rows are): only now the 250.
            if ('sent' in outcome) return callback(null, `2.0.0 accepted as ${outcome.sent.map((e) => e.email).join(', ')}`);
            if (outcome.duplicate === 'accepted') return callback(null, '2.0.0 already accepted (same Message-ID); not sent again');
            callback(reply(451, '4.3.0 a message with this Message-ID is being accepted; try again later'));
          },
          (err) => {
            if (err instanceof DomainError) return callback(refusalOf(err));
            log.error({ err }, 'submission: accepting a message failed');
            callback(unavailable());
          },
        );
      });
    },
  };

  const starttls = new SMTPServer(options);
  // Implicit TLS (465): the session is secure from the first byte, so STARTTLS has no place.
  const implicit = opts.tlsPort === null || (opts.tlsPort ?? config.submission.tlsPort) === undefined ? null : new SMTPServer({ ...options, secure: true });
  const host = opts.host ?? config.submission.host;
  const listen = async (server: SMTPServer, port: number) => {
    server.on('error', (err) => log.warn({ err }, 'submission SMTP server error'));
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(port, host, () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    return (server.server.address() as AddressInfo).port;
  };
  const port = await listen(starttls, opts.port ?? config.submission.port);
  let tlsPort: number | undefined;
  try {
    if (implicit) tlsPort = await listen(implicit, opts.tlsPort ?? config.submission.tlsPort!);
  } catch (err) {
    await new Promise<void>((resolve) => starttls.close(() => resolve()));
    throw err;
  }
  return {
    port,
    tlsPort,
    async close() {
      await Promise.all([starttls, ...(implicit ? [implicit] : [])].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}

/** Standalone submission process (`npm run submission`; a service of its own in docker-compose.yml and `npm run cluster`). */
if (require.main === module) {
  (async () => {
    const { loadConfigOrExit } = await import('../lib/config');
    const { createLogger } = await import('../lib/logger');
    const { createKnex, ensureDatabase, migrateLatest } = await import('../db/knex');
    const { createTemporalGateway } = await import('../services/temporal');
    const { createRuntime } = await import('../services/runtime');
    const config = loadConfigOrExit();
    const log = createLogger(config.logLevel, 'submission');
    await ensureDatabase(config.databaseUrl);
    const migrator = createKnex(config.databaseUrl, { max: 1 });
    await migrateLatest(migrator).finally(() => migrator.destroy());
    const knex = createKnex(config.databaseUrl, { max: 10, statementTimeoutMs: config.dbStatementTimeoutMs });
    const temporal = createTemporalGateway(config);
    const runtime = createRuntime({ config, knex, temporal, log });
    const server = await startSubmissionServer({ config, knex, temporal, log, runtime });
    const where = config.submission.host ?? '0.0.0.0';
    log.info(
      { port: server.port, tlsPort: server.tlsPort, host: where },
      `SMTP submission server on ${where}:${server.port} (STARTTLS)${server.tlsPort ? ` and ${where}:${server.tlsPort} (TLS)` : ''}`,
    );
    const stop = async () => {
      await server.close();
      // Closing the gateway first hands over what the delivery batcher holds (services/runtime.ts).
      await temporal.close();
      await knex.destroy();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })().catch((err) => {
    process.stderr.write(`submission failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
