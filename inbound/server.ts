import fs from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import type { TemporalGateway } from '../services/temporal';
import type { Runtime } from '../services/runtime';
import { resolveRecipient, type InboundTarget } from '../services/inbound/recipients';
import { inboundMail, type Authenticator } from '../services/inbound/accept';
import { inboundAuthenticator } from '../services/inbound/authenticate';
import { replaceRefused } from '../lib/hostileText';

/**
 * The inbound SMTP server (docs/inbound.md): `npm start` runs it beside the API, `npm run inbound`
 * alone. It takes mail only for addresses it owns (VERP return paths and `inbound.` domains),
 * commits what it accepted before answering 250, and never relays.
 */

export interface InboundDeps {
  config: Config;
  knex: Knex;
  temporal: TemporalGateway;
  log: Logger;
  /** The process's collaborators (services/runtime.ts): the event hand-off after each 250. */
  runtime: Pick<Runtime, 'events'>;
}

export interface InboundLimits {
  /** Connections one client address may hold at once. */
  connectionsPerIp: number;
  /** Messages one connection may send before it must reconnect. */
  messagesPerConnection: number;
  recipientsPerMessage: number;
  /** Connections in all. */
  clients: number;
}

export const DEFAULT_LIMITS: InboundLimits = { connectionsPerIp: 10, messagesPerConnection: 100, recipientsPerMessage: 50, clients: 500 };

export interface InboundServer {
  port: number;
  close(): Promise<void>;
}

/** An SMTP reply: smtp-server sends `responseCode` and the message (which carries the enhanced status code). */
const reply = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

export async function startInboundServer(
  deps: InboundDeps,
  opts: { port?: number; host?: string; limits?: Partial<InboundLimits>; authenticate?: Authenticator } = {},
): Promise<InboundServer> {
  const { config, log } = deps;
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const maxBytes = config.inbound.maxBytes;
  const hostname = os.hostname();
  const mail = inboundMail(deps, opts.authenticate ?? inboundAuthenticator(config, hostname));
  const targets = new WeakMap<SMTPServerAddress, InboundTarget>();
  const perIp = new Map<string, number>();
  const messagesOf = new Map<string, number>();
  const pending = new Set<Promise<void>>();
  const tls = config.inbound.tls;

  const server = new SMTPServer({
    name: hostname,
    banner: 'inbound mail only; no relay',
    size: maxBytes,
    maxClients: limits.clients,
    disableReverseLookup: true,
    authOptional: true,
    // Nobody logs in: the server only takes mail for its own addresses.
    disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(tls ? { key: fs.readFileSync(tls.keyFile), cert: fs.readFileSync(tls.certFile) } : {}),
    socketTimeout: 60_000,
    closeTimeout: 5_000,
    logger: false,

    onConnect(session, callback) {
      const n = (perIp.get(session.remoteAddress) ?? 0) + 1;
      perIp.set(session.remoteAddress, n);
      if (n > limits.connectionsPerIp) return callback(reply(421, '4.7.0 too many connections from your address; try again later'));
      callback();
    },

    onClose(session) {
      const n = (perIp.get(session.remoteAddress) ?? 1) - 1;
      if (n > 0) perIp.set(session.remoteAddress, n);
      else perIp.delete(session.remoteAddress);
      messagesOf.delete(session.id);
    },

    onMailFrom(_address, session, callback) {
      if ((messagesOf.get(session.id) ?? 0) >= limits.messagesPerConnection) {
        return callback(reply(421, '4.7.0 too many messages on this connection; reconnect to send more'));
      }
      callback();
    },

    onRcptTo(address, session, callback) {
      if (session.envelope.rcptTo.length >= limits.recipientsPerMessage) return callback(reply(452, '4.5.3 too many recipients'));
      resolveRecipient(deps, address.address).then(
        (target) => {
          if (!target) return callback(reply(550, `5.1.1 <${address.address.slice(0, 320)}>: no such recipient here (this server does not relay)`));
          targets.set(address, target);
          callback();
        },
        (err) => {
          log.warn({ err }, 'inbound: recipient lookup failed');
          callback(reply(451, '4.3.0 temporary failure; try again later'));
        },
      );
    },

    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        // Past the cap the rest is drained, not kept: the answer is 552 anyway.
        size += chunk.length;
        if (size <= maxBytes) chunks.push(chunk);
      });
      stream.on('end', () => {
        messagesOf.set(session.id, (messagesOf.get(session.id) ?? 0) + 1);
        if (stream.sizeExceeded || size > maxBytes) return callback(reply(552, `5.3.4 message larger than ${maxBytes} bytes`));
        const recipients = session.envelope.rcptTo.flatMap((a) => {
          const target = targets.get(a);
          return target ? [{ address: a.address.toLowerCase(), target }] : [];
        });
        const mailFrom =
          session.envelope.mailFrom && session.envelope.mailFrom.address ? replaceRefused(session.envelope.mailFrom.address).slice(0, 320) : null;
        mail.accept({ raw: Buffer.concat(chunks), mailFrom, recipients, remoteAddress: session.remoteAddress, helo: session.hostNameAppearsAs ?? '' }).then(
          (outcome) => {
            if (!outcome.accepted) return callback(reply(550, `5.6.0 malformed message: ${outcome.reason}`));
            // Committed: the 250 goes out first, the hand-over to Temporal follows.
            callback(null, `2.0.0 accepted as ${outcome.ids.join(', ')}`);
            const p = mail.afterCommit(outcome.toRoute).finally(() => pending.delete(p));
            pending.add(p);
          },
          (err) => {
            log.error({ err }, 'inbound: storing a message failed');
            callback(reply(451, '4.3.0 temporary failure; try again later'));
          },
        );
      });
    },
  });

  server.on('error', (err) => log.warn({ err }, 'inbound SMTP server error'));
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port ?? config.inbound.port, opts.host ?? config.inbound.host, () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled([...pending]);
    },
  };
}

/** Standalone inbound process (`npm run inbound`; a service of its own in docker-compose.yml and `npm run cluster`). */
if (require.main === module) {
  (async () => {
    const { loadConfigOrExit } = await import('../lib/config');
    const { createLogger } = await import('../lib/logger');
    const { createKnex, ensureDatabase, migrateLatest } = await import('../db/knex');
    const { createTemporalGateway } = await import('../services/temporal');
    const config = loadConfigOrExit();
    const log = createLogger(config.logLevel, 'inbound');
    await ensureDatabase(config.databaseUrl);
    const migrator = createKnex(config.databaseUrl, { max: 1 });
    await migrateLatest(migrator).finally(() => migrator.destroy());
    const knex = createKnex(config.databaseUrl, { max: 10 });
    const temporal = createTemporalGateway(config);
    const { createRuntime } = await import('../services/runtime');
    const server = await startInboundServer({ config, knex, temporal, log, runtime: createRuntime({ config, knex, temporal, log }) });
    log.info({ port: server.port, host: config.inbound.host ?? '0.0.0.0' }, `inbound SMTP server listening on port ${server.port}`);
    const stop = async () => {
      await server.close();
      await temporal.close();
      await knex.destroy();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })().catch((err) => {
    process.stderr.write(`inbound failed: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
}
