import type { Knex } from 'knex';

/** `%term%` for ILIKE with the term taken literally: LIKE's own wildcards in it are escaped. */
export const containsPattern = (term: string) => `%${term.replace(/[\\%_]/g, '\\$&')}%`;

/** Case-insensitive literal substring match of `term` on any of `columns`. */
export function whereAnyContains(q: Knex.QueryBuilder, columns: string[], term: string): Knex.QueryBuilder {
  const pattern = containsPattern(term);
  return q.andWhere((w) => {
    for (const c of columns) w.orWhere(c, 'ilike', pattern);
  });
}
