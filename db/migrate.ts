import { loadConfigOrExit } from '../lib/config';
import { createLogger } from '../lib/logger';
import { createKnex, ensureDatabase, migrateLatest } from './knex';

async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.logLevel, 'migrate');
  await ensureDatabase(config.databaseUrl);
  const knex = createKnex(config.databaseUrl);
  await migrateLatest(knex);
  log.info('migrations are up to date');
  await knex.destroy();
}

main().catch((err) => {
  process.stderr.write(`migration failed: ${err?.stack ?? err}\n`);
  process.exit(1);
});
