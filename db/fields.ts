import type { Knex } from 'knex';

/** The per-project registry of custom contact fields (`contact_fields`) and the field descriptors built on it. */

import type { FieldEntry, FieldType } from '../lib/contactData';

export type { FieldEntry, FieldType };

export interface FieldDescriptor {
  field: string;
  type: FieldType;
  isCustom: boolean;
  coverage: number;
}

const STANDARD_FIELDS: FieldEntry[] = [
  { key: 'email', type: 'string' },
  { key: 'subscribed', type: 'boolean' },
  { key: 'createdAt', type: 'date' },
  { key: 'updatedAt', type: 'date' },
];

/**
 * Records the type of each key not registered yet. ON CONFLICT DO NOTHING makes the first writer win
 * even when two requests introduce the same key at once; rows go in key order so two writers
 * registering overlapping sets always lock them in the same order and cannot deadlock.
 */
export async function registerFields(db: Knex, projectId: string, entries: FieldEntry[]): Promise<void> {
  const rows = registryRows(entries);
  if (rows.length === 0) return;
  await db('contact_fields')
    .insert(rows.map((r) => ({ project_id: projectId, ...r })))
    .onConflict(['project_id', 'key'])
    .ignore();
}

/** The rows `entries` register: the first type seen per key, in key order. */
export function registryRows(entries: FieldEntry[]): FieldEntry[] {
  const byKey = new Map<string, FieldType>();
  for (const e of entries) if (!byKey.has(e.key)) byKey.set(e.key, e.type);
  return [...byKey.keys()].sort().map((key) => ({ key, type: byKey.get(key)! }));
}

export async function registeredFields(db: Knex, projectId: string): Promise<FieldEntry[]> {
  return db('contact_fields').where({ project_id: projectId }).orderBy('key', 'asc').select('key', 'type');
}

/**
 * Standard fields, then every registered `data.<key>` with the share of the project's contacts that
 * have it. All coverages come from one scan: one FILTER aggregate per key in a single SELECT.
 * Keys are bound as parameters and split on "." by Postgres (data keys may not contain dots).
 */
export async function describeFields(db: Knex, projectId: string): Promise<FieldDescriptor[]> {
  const custom = await registeredFields(db, projectId);
  // `timezone` is soft-reserved (lib/sendingPolicy): only values that name a zone count as present,
  // so an invalid one, which falls back to the project's zone, shows as missing coverage.
  const counts = custom
    .map((f, i) =>
      f.key === 'timezone'
        ? `, count(*) FILTER (WHERE data #>> string_to_array(?, '.') IN (SELECT name FROM pg_timezone_names)) AS k${i}`
        : `, count(*) FILTER (WHERE data #> string_to_array(?, '.') IS NOT NULL) AS k${i}`,
    )
    .join('');
  const { rows } = await db.raw(`SELECT count(*) AS total${counts} FROM contacts WHERE project_id = ?`, [...custom.map((f) => f.key), projectId]);
  const row = rows[0];
  const total = Number(row.total);
  return [
    ...STANDARD_FIELDS.map((f) => ({ field: f.key, type: f.type, isCustom: false, coverage: 1 })),
    ...custom.map((f, i) => ({
      field: `data.${f.key}`,
      type: f.type,
      isCustom: true,
      coverage: total === 0 ? 0 : Number(row[`k${i}`]) / total,
    })),
  ];
}
