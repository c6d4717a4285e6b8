import type { Knex } from 'knex';

/**
 * Slugs of a project's named things (segments, topics): event names and filter fields are built from
 * them, so two of one kind in a project never share one.
 */

/** Lowercase, every run of characters other than a-z and 0-9 turned into one "-", none at the ends; `fallback` when nothing is left. */
export function slugify(name: string, fallback: string, maxLength = Infinity): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, maxLength)
    .replace(/-+$/, '');
  return slug || fallback;
}

/** The first free slug of `table` in the project: `base`, else `base-2`, `base-3`, … */
export async function freeSlug(db: Knex, table: 'segments' | 'topics', projectId: string, base: string): Promise<string> {
  const taken = new Set<string>(
    await db(table)
      .where({ project_id: projectId })
      .andWhere((q) => q.where('slug', base).orWhere('slug', 'like', `${base}-%`))
      .pluck('slug'),
  );
  let n = 1;
  while (taken.has(n === 1 ? base : `${base}-${n}`)) n++;
  return n === 1 ? base : `${base}-${n}`;
}
