import type { Knex } from 'knex';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Keys (ids, or topic ids and slugs) by the kind of thing they name. */
export interface ReferenceKeys {
  template?: string[];
  topic?: string[];
  segment?: string[];
}

/**
 * The names of a project's templates, topics and segments a set of keys refers to, each under the
 * key it was asked by (a topic by id or by slug). Keys of no row of the project are absent. One
 * query per kind asked; ids that are not UUIDs never reach a uuid column.
 */
export async function referenceNames(knex: Knex, projectId: string, keys: ReferenceKeys): Promise<Record<keyof ReferenceKeys, Record<string, string>>> {
  const out: Record<keyof ReferenceKeys, Record<string, string>> = { template: {}, topic: {}, segment: {} };
  const ids = (list: string[] = []) => [...new Set(list.filter((k) => UUID.test(k)).map((k) => k.toLowerCase()))];
  const byId = async (table: string, kind: keyof ReferenceKeys) => {
    const wanted = ids(keys[kind]);
    if (!wanted.length) return;
    const rows: { id: string; name: string }[] = await knex(table).where({ project_id: projectId }).whereIn('id', wanted).select('id', 'name');
    for (const key of keys[kind] ?? []) {
      const row = rows.find((r) => r.id === key.toLowerCase());
      if (row) out[kind][key] = row.name;
    }
  };
  await byId('templates', 'template');
  await byId('segments', 'segment');
  const topicKeys = keys.topic ?? [];
  if (topicKeys.length) {
    const rows: { id: string; slug: string; name: string }[] = await knex('topics')
      .where({ project_id: projectId })
      .andWhere((q) => q.whereIn('slug', topicKeys).orWhereIn('id', ids(topicKeys)))
      .select('id', 'slug', 'name');
    for (const key of topicKeys) {
      const row = rows.find((r) => r.slug === key || r.id === key.toLowerCase());
      if (row) out.topic[key] = row.name;
    }
  }
  return out;
}
