import { isWriteSql, noteStatement, scopeWrote, withWriteScope, writeListeners } from '../../db/writeScope';

test('statements that may change data count as writes; reads and transaction control do not', () => {
  for (const sql of [
    'insert into "contacts" ("email") values ($1)',
    'UPDATE contacts c SET data = n.data FROM (SELECT 1) n',
    'delete from "events" where "id" = $1',
    'WITH up AS (INSERT INTO contacts (id) VALUES ($1) RETURNING *) SELECT * FROM up',
    'with s as (select 1) update contacts set subscribed = false',
    'select * from "contacts" where "id" = $1 for update',
    'create index concurrently foo on contacts (email)',
    'copy contacts from stdin',
  ])
    expect([sql, isWriteSql(sql)]).toEqual([sql, true]);
  for (const sql of [
    'select count(*) from "contacts" where "project_id" = $1',
    '  SELECT updated_at FROM contacts',
    'BEGIN;',
    'COMMIT;',
    'ROLLBACK',
    'savepoint trx2',
    'with s as (select updated_at from contacts) select count(*) from s',
    'show statement_timeout',
  ])
    expect([sql, isWriteSql(sql)]).toEqual([sql, false]);
});

test('a write marks its own scope and tells the listeners its project; another scope stays clean', async () => {
  const told: string[] = [];
  const listener = (id: string) => told.push(id);
  writeListeners.add(listener);
  try {
    await withWriteScope('p1', async () => {
      noteStatement('select 1');
      expect(scopeWrote()).toBe(false);
      await withWriteScope('p2', async () => expect(scopeWrote()).toBe(false));
      noteStatement('insert into contacts (id) values ($1)');
      noteStatement('update contacts set subscribed = true');
      expect(scopeWrote()).toBe(true);
    });
    // Outside any scope (the worker, the auth middleware's bookkeeping) a write marks nothing.
    noteStatement('insert into sessions (id) values ($1)');
    expect(scopeWrote()).toBe(false);
    expect(told).toEqual(['p1']);
  } finally {
    writeListeners.delete(listener);
  }
});
