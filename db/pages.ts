import type { Knex } from 'knex';

export interface PageInput {
  page: number;
  pageSize: number;
  /** A trusted SQL ordering expression (never user text), e.g. `lower(name)`. */
  orderSql: string;
  dir: 'asc' | 'desc';
}

/** What a paged, searchable, sortable listing is asked for (templates, campaigns); `S` names its sort keys. */
export interface ListingQuery<S extends string> {
  page: number;
  pageSize: number;
  search?: string;
  sort: S;
  dir: 'asc' | 'desc';
}

/**
 * One page of a filtered listing plus its total. `filtered` builds the same WHERE twice (rows and
 * count); id breaks ties so equal sort keys never shuffle rows between pages.
 */
export async function pageOf<T>(filtered: () => Knex.QueryBuilder, input: PageInput): Promise<{ rows: T[]; total: number; totalPages: number }> {
  // Spliced into SQL, so only ever one of these two literals.
  const dir = input.dir === 'asc' ? 'asc' : 'desc';
  const [rows, counted] = await Promise.all([
    filtered()
      .select('*')
      .orderByRaw(`${input.orderSql} ${dir}, id ${dir}`)
      .limit(input.pageSize)
      .offset((input.page - 1) * input.pageSize),
    filtered().count<{ count: number }[]>('* as count'),
  ]);
  const total = Number(counted[0].count);
  return { rows: rows as T[], total, totalPages: Math.ceil(total / input.pageSize) };
}
