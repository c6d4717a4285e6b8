import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { ImageStore } from '../lib/storage';
import { PostgresImageStore } from '../db/uploads';

/**
 * The configured upload store; every API replica reaches the same one. Built once per process
 * (services/runtime.ts): the S3 client keeps its sockets open between requests.
 */
export function createImageStore(config: Config, knex: Knex): ImageStore {
  if (config.uploads.store === 'postgres') return new PostgresImageStore(knex);
  // Loaded only when configured: the AWS SDK's S3 client costs a process memory it need not hold.
  return new (require('../lib/s3ImageStore') as typeof import('../lib/s3ImageStore')).S3ImageStore(config.uploads);
}
