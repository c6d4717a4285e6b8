import type { Knex } from 'knex';
import { Brand, DEFAULT_BRAND } from '../lib/brand';

/** The project's brand kit; the defaults when it never set one (or a stored one no longer parses). */
export async function getBrand(knex: Knex, projectId: string): Promise<Brand> {
  const row = await knex('brands').where({ project_id: projectId }).first('settings');
  const parsed = row ? Brand.safeParse(row.settings) : null;
  return parsed?.success ? parsed.data : DEFAULT_BRAND;
}

export async function putBrand(knex: Knex, projectId: string, brand: Brand): Promise<Brand> {
  await knex('brands')
    .insert({ project_id: projectId, settings: JSON.stringify(brand) })
    .onConflict('project_id')
    .merge({ settings: JSON.stringify(brand), updated_at: knex.fn.now() });
  return brand;
}
