import type { Knex } from 'knex';
import type { Config } from '../lib/config';
import type { ImageStore } from '../lib/storage';
import { S3ImageStore } from '../lib/s3ImageStore';
import { PostgresImageStore } from '../db/uploads';

/**
 * The configured upload store; every API replica reaches the same one. Built once per process
 * (services/runtime.ts): the S3 client keeps its sockets open between requests.
 */
export function createImageStore(config: Config, knex: Knex): ImageStore {
  return config.uploads.store === 'postgres' ? new PostgresImageStore(knex) : new S3ImageStore(config.uploads);
}
