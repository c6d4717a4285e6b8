import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { loadConfigOrExit } from '../lib/config';
import pino from 'pino';
import { createKnex } from '../db/knex';
import { createTemporalGateway } from '../services/temporal';
import { createRuntime } from '../services/runtime';
import { identifyKey } from '../services/apiKeys';
import { createMcpServer } from './server';

/**
 * `npm run mcp`: the MCP server over stdio for a local client (docs/mcp.md). The key comes from
 * API_KEY; stdout carries the protocol only, so nothing else may write there.
 */
async function main() {
  const secret = process.env.API_KEY?.trim();
  if (!secret) {
    process.stderr.write('Set API_KEY to a secret key (sk_…) or a named API key (key_…)\n');
    process.exit(1);
  }
  const config = loadConfigOrExit();
  // Logs to stderr: stdout is the protocol's.
  const log = pino({ name: 'mcp', level: config.logLevel, base: { service: 'mcp' } }, pino.destination(2));
  const knex = createKnex(config.databaseUrl, { max: 4, statementTimeoutMs: config.dbStatementTimeoutMs });
  const temporal = createTemporalGateway(config);
  const who = await identifyKey(knex, secret);
  if ('error' in who) {
    process.stderr.write(`${who.message}\n`);
    await knex.destroy();
    process.exit(1);
  }
  const server = createMcpServer({ config, knex, temporal, log, runtime: createRuntime({ config, knex, temporal, log }) }, who);
  const stop = async () => {
    await server.close();
    await temporal.close();
    await knex.destroy();
    process.exit(0);
  };
  process.stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await server.connect(new StdioServerTransport());
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
