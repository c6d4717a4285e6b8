import type { Deps } from './context';
import type { ImageStore } from '../lib/storage';
import { S3ImageStore } from '../lib/s3ImageStore';
import { PostgresImageStore } from '../db/uploads';

/** One S3 client per process configuration: it keeps its sockets open between requests. */
const s3Stores = new WeakMap<Deps['config'], S3ImageStore>();

/** The configured upload store; every API replica reaches the same one. */
export function imageStore(deps: Pick<Deps, 'config' | 'knex'>): ImageStore {
  const u = deps.config.uploads;
  if (u.store === 'postgres') return new PostgresImageStore(deps.knex);
  let store = s3Stores.get(deps.config);
  if (!store) s3Stores.set(deps.config, (store = new S3ImageStore(u)));
  return store;
}
