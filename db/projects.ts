import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { randomBase62, uuid } from '../lib/ids';

export type KeyKind = 'public' | 'secret';

export interface ProjectRow {
  id: string;
  name: string;
  public_key_hash: string;
  secret_key_hash: string;
  public_key_last4: string;
  secret_key_last4: string;
  disabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export const ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type Role = (typeof ROLES)[number];

export const hashKey = (key: string) => crypto.createHash('sha256').update(key).digest('hex');

export function keyKind(key: string): KeyKind | null {
  if (key.startsWith('pk_')) return 'public';
  if (key.startsWith('sk_')) return 'secret';
  return null;
}

function newKeys() {
  const publicKey = `pk_${randomBase62(32)}`;
  const secretKey = `sk_${randomBase62(32)}`;
  return {
    publicKey,
    secretKey,
    columns: {
      public_key_hash: hashKey(publicKey),
      secret_key_hash: hashKey(secretKey),
      public_key_last4: publicKey.slice(-4),
      secret_key_last4: secretKey.slice(-4),
    },
  };
}

/** The shape the dashboard sees; full keys only right after creation or rotation. */
export function presentProject(row: ProjectRow, keys?: { publicKey: string; secretKey: string }) {
  return {
    id: row.id,
    name: row.name,
    publicKey: keys?.publicKey ?? `pk_…${row.public_key_last4}`,
    secretKey: keys?.secretKey ?? `sk_…${row.secret_key_last4}`,
    disabled: row.disabled,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function createProject(knex: Knex, ownerId: string, name: string) {
  const keys = newKeys();
  return knex.transaction(async (trx) => {
    const [row] = await trx<ProjectRow>('projects').insert({ id: uuid(), name, ...keys.columns }).returning('*');
    await trx('project_members').insert({ project_id: row.id, user_id: ownerId, role: 'OWNER' });
    return { row, keys };
  });
}

/** Both keys change in one statement: the old pair stops matching on every replica at once. */
export async function rotateKeys(knex: Knex, projectId: string) {
  const keys = newKeys();
  const [row] = await knex<ProjectRow>('projects')
    .where({ id: projectId })
    .update({ ...keys.columns, updated_at: knex.fn.now() as any })
    .returning('*');
  return row ? { row, keys } : null;
}

export async function findProjectByKey(knex: Knex, key: string): Promise<{ project: ProjectRow; kind: KeyKind } | null> {
  const kind = keyKind(key);
  if (!kind) return null;
  const column = kind === 'public' ? 'public_key_hash' : 'secret_key_hash';
  const project = await knex<ProjectRow>('projects').where(column, hashKey(key)).first();
  return project ? { project, kind } : null;
}

export async function membership(knex: Knex, projectId: string, userId: string): Promise<Role | null> {
  const row = await knex('project_members').where({ project_id: projectId, user_id: userId }).first('role');
  return row ? (row.role as Role) : null;
}

export async function projectsOfUser(knex: Knex, userId: string) {
  return knex<ProjectRow>('projects')
    .join('project_members', 'project_members.project_id', 'projects.id')
    .where('project_members.user_id', userId)
    .orderBy('projects.created_at', 'asc')
    .select('projects.*', 'project_members.role');
}
