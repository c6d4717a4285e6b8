import fs from 'node:fs';
import type { Knex } from 'knex';
import { ImageExt, ImageStore, newStoredName, STORED_NAME, StoredImage } from '../lib/storage';

/** Uploaded images as rows of `uploads`: shared by every API replica with no extra service. */
export class PostgresImageStore implements ImageStore {
  constructor(private readonly knex: Knex) {}

  async putFile(projectId: string, sourcePath: string, ext: ImageExt): Promise<string> {
    const bytes = await fs.promises.readFile(sourcePath);
    const name = newStoredName(ext);
    await this.knex('uploads').insert({ project_id: projectId, name, size: bytes.length, bytes });
    return name;
  }

  async open(projectId: string, name: string): Promise<StoredImage | null> {
    if (!STORED_NAME.test(name)) return null;
    const row = await this.knex('uploads').where({ project_id: projectId, name }).first('bytes', 'size');
    return row ? { body: row.bytes as Buffer, size: row.size } : null;
  }

  async removeProject(projectId: string): Promise<void> {
    await this.knex('uploads').where({ project_id: projectId }).delete();
  }
}
