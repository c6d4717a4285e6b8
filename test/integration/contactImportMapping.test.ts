import { whereSearchMatches } from '../../db/contactReaders';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';

/** The import's mapping step (typed columns), its preview, typed filters on the result, and contact search. */

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h, 'mapping');
  other = await createProjectFixture(h, 'mapping-other');
});
afterAll(() => h?.stop());

function upload(content: string, mapping?: unknown, key = p.secretKey) {
  const req = h.http.post('/contacts/import').set(bearer(key)).attach('file', Buffer.from(content), 'contacts.csv');
  return mapping === undefined ? req : req.field('mapping', typeof mapping === 'string' ? mapping : JSON.stringify(mapping));
}

async function imported(content: string, mapping?: unknown, key = p.secretKey) {
  const res = await upload(content, mapping, key);
  expect(res.status).toBe(202);
  return eventually(async () => {
    const job = await h.http.get(`/contacts/import/${res.body.jobId}`).set(bearer(key));
    return job.body.status === 'COMPLETED' && job.body;
  }, 60_000);
}

const dataOf = async (projectId: string, email: string) => (await h.deps.knex('contacts').where({ project_id: projectId, email }).first())?.data;
const fieldTypes = async (key: string) =>
  Object.fromEntries((await h.http.get('/contacts/fields').set(bearer(key))).body.fields.map((f: { field: string; type: string }) => [f.field, f.type]));
const count = (condition: unknown, key = p.secretKey) => h.http.post('/contacts/count').set(bearer(key)).send({ condition });
const scoreAbove = (n: number, tag: string) => ({
  logic: 'AND',
  groups: [
    {
      filters: [
        { field: 'data.score', operator: 'greaterThan', value: n },
        { field: 'data.batch', operator: 'equals', value: tag },
      ],
    },
  ],
});

const CSV = [
  'E-mail,Score,VIP,Joined,Notes,batch',
  'ann@map.test,72,yes,2024-03-01,likes cats,b1',
  'bob@map.test,12,no,2024-03-02T10:00:00Z,,b1',
  'cy@map.test,99,1,,call back,b1',
  'dee@map.test,abc,no,2024-03-03,x,b1',
  'eve@map.test,55,maybe,2024-03-04,x,b1',
].join('\n');

const MAPPING = [
  { column: 'E-mail', key: 'email' },
  { column: 'Score', key: 'score', type: 'number' },
  { column: 'VIP', key: 'vip', type: 'boolean' },
  { column: 'Joined', key: 'joined', type: 'date' },
  { column: 'Notes', skip: true },
];

describe('POST /contacts/import with a mapping', () => {
  it('stores typed values, renames and skips columns, and names the row and column of each misfit', async () => {
    const job = await imported(CSV, MAPPING);
    expect(job).toMatchObject({ total: 5, succeeded: 3, failed: 2 });
    expect(job.errors).toEqual([
      { row: 5, message: 'column Score: "abc" is not a number' },
      { row: 6, message: expect.stringMatching(/^column VIP: "maybe" is not true or false/) },
    ]);
    // The same job read in French and German: each row error composed from its stored parts.
    const read = async (lang: string) => {
      const res = await h.http.get(`/contacts/import/${job.id}`).set(bearer(p.secretKey)).set('Accept-Language', lang);
      expect(res.headers.vary).toMatch(/Accept-Language/);
      return res.body.errors;
    };
    expect(await read('fr')).toEqual([
      { row: 5, message: 'colonne Score : "abc" n’est pas un nombre' },
      { row: 6, message: 'colonne VIP : "maybe" n’est ni vrai ni faux (true, false, yes, no, 1, 0)' },
    ]);
    expect(await read('de-AT')).toEqual([
      { row: 5, message: 'Spalte Score: "abc" ist keine Zahl' },
      { row: 6, message: 'Spalte VIP: "maybe" ist weder wahr noch falsch (true, false, yes, no, 1, 0)' },
    ]);
    expect(await dataOf(p.projectId, 'ann@map.test')).toEqual({ score: 72, vip: true, joined: '2024-03-01', batch: 'b1' });
    // An empty typed cell is ignored like any empty value; the skipped column is nowhere.
    expect(await dataOf(p.projectId, 'cy@map.test')).toEqual({ score: 99, vip: true, batch: 'b1' });
    expect(await dataOf(p.projectId, 'bob@map.test')).toEqual({ score: 12, vip: false, joined: '2024-03-02T10:00:00.000Z', batch: 'b1' });
    expect(await dataOf(p.projectId, 'dee@map.test')).toBeUndefined();
    const types = await fieldTypes(p.secretKey);
    expect(types).toMatchObject({ 'data.score': 'number', 'data.vip': 'boolean', 'data.joined': 'date', 'data.batch': 'string' });
    expect(types['data.Notes']).toBeUndefined();
    expect(types['data.Score']).toBeUndefined();
  });

  it('makes numbers filterable with greater than and less than', async () => {
    expect((await count(scoreAbove(50, 'b1'))).body).toEqual({ count: 2 });
    const below = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.score', operator: 'lessThan', value: 50 },
            { field: 'data.batch', operator: 'equals', value: 'b1' },
          ],
        },
      ],
    };
    expect((await count(below)).body).toEqual({ count: 1 });
    // The other project has no such contacts.
    expect((await count(scoreAbove(50, 'b1'), other.secretKey)).body).toEqual({ count: 0 });
  });

  it('registers the declared type of a new key even when its values would infer another', async () => {
    await imported('email,code\nx1@map.test,2024-01-01\n', [{ column: 'code', key: 'promo', type: 'string' }]);
    expect((await fieldTypes(p.secretKey))['data.promo']).toBe('string');
    expect(await dataOf(p.projectId, 'x1@map.test')).toEqual({ promo: '2024-01-01' });
  });

  it('refuses a mapping that names no column, is not JSON, or leaves no email column (422 on the field)', async () => {
    const unknown = await upload(CSV, [{ column: 'Nope', skip: true }]);
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain('the mapping names column \\"Nope\\"');
    expect((await upload(CSV, '{not json')).status).toBe(422);
    expect((await upload(CSV, [{ column: 'Score', type: 'money' }])).status).toBe(422);
    const noEmail = await upload('email,score\na@b.test,1\n', [{ column: 'email', skip: true }]);
    expect(noEmail.status).toBe(422);
    expect(JSON.stringify(noEmail.body)).toContain('no \\"email\\" column');
  });

  it('without a mapping imports as before: every cell text, headers as written', async () => {
    await imported('email,Score,vip\nold@map.test,72,yes\n', undefined, other.secretKey);
    expect(await dataOf(other.projectId, 'old@map.test')).toEqual({ Score: '72', vip: 'yes' });
    expect((await fieldTypes(other.secretKey))['data.Score']).toBe('string');
  });
});

describe('POST /contacts/import/preview', () => {
  it("shows the header, the first rows and each column's guessed type, storing nothing", async () => {
    const before = Number((await h.deps.knex('contacts').where({ project_id: p.projectId }).count('* as n'))[0].n);
    const res = await h.http.post('/contacts/import/preview').set(bearer(p.secretKey)).attach('file', Buffer.from(CSV), 'contacts.csv');
    expect(res.status).toBe(200);
    expect(res.body.columns.map((c: { column: string; type: string }) => [c.column, c.type])).toEqual([
      ['E-mail', 'string'],
      ['Score', 'string'], // "abc" in row 5
      ['VIP', 'string'], // "maybe" in row 6
      ['Joined', 'date'],
      ['Notes', 'string'],
      ['batch', 'string'],
    ]);
    expect(res.body.rows).toHaveLength(5);
    expect(Number((await h.deps.knex('contacts').where({ project_id: p.projectId }).count('* as n'))[0].n)).toBe(before);
    const empty = await h.http.post('/contacts/import/preview').set(bearer(p.secretKey)).attach('file', Buffer.from(''), 'e.csv');
    expect(empty.status).toBeGreaterThanOrEqual(400);
    expect(empty.status).toBeLessThan(500);
  });
});

describe('contact search', () => {
  // The dashboard's search box: POST /contacts/search matches any value.
  const search = (term: string, key = p.secretKey) =>
    h.http
      .post('/contacts/search')
      .send({ search: term, limit: 100 })
      .set(bearer(key))
      .then((r) => r.body.data.map((c: { email: string }) => c.email).sort());
  // The spec's GET /contacts `search`: a substring of the email only.
  const searchEmail = (term: string) =>
    h.http
      .get('/contacts')
      .query({ search: term, limit: 100 })
      .set(bearer(p.secretKey))
      .then((r) => r.body.data.map((c: { email: string }) => c.email).sort());

  beforeAll(async () => {
    for (const [email, data] of [
      ['grace@search.test', { firstName: 'Grace', lastName: 'Hopper', plan: 'Enterprise' }],
      ['alan@search.test', { firstName: 'Alan', lastName: 'Turing', plan: 'starter', profile: { city: 'Wilmslow' } }],
    ] as const) {
      expect((await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email, data })).status).toBe(201);
    }
    await h.http
      .post('/contacts')
      .set(bearer(other.secretKey))
      .send({ email: 'grace@elsewhere.test', data: { lastName: 'Hopper' } });
  });

  it('matches email, names and any field value, nested ones included, case-insensitively', async () => {
    expect(await search('hopp')).toEqual(['grace@search.test']);
    expect(await search('ENTERPRISE')).toEqual(['grace@search.test']);
    expect(await search('wilmslow')).toEqual(['alan@search.test']);
    expect(await search('alan@')).toEqual(['alan@search.test']);
    expect(await search('search.test')).toEqual(['alan@search.test', 'grace@search.test']);
  });

  it('GET /contacts `search` matches the email only, as the spec defines it', async () => {
    expect(await searchEmail('GRACE@')).toEqual(['grace@search.test']);
    expect(await searchEmail('hopp')).toEqual([]);
    expect(await searchEmail('enterprise')).toEqual([]);
  });

  it('matches values, not key names, and stays within the project', async () => {
    expect(await search('firstName')).toEqual([]);
    expect(await search('Hopper', other.secretKey)).toEqual(['grace@elsewhere.test']);
    expect(await search('Turing', other.secretKey)).toEqual([]);
  });

  it('is served by the trigram indexes on email and on the data values', async () => {
    // Seq scans priced out and no project condition (whose index wins on a small table): only the
    // trigram indexes remain, and only if the query's expressions are exactly the indexed ones.
    const plan = await h.deps.knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_seqscan = off');
      const { sql, bindings } = whereSearchMatches(trx('contacts'), 'hopper').count('* as n').toSQL();
      return (await trx.raw(`EXPLAIN ${sql}`, bindings as unknown[] as string[])).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('contacts_email_trgm');
    expect(plan).toContain('contacts_data_values_trgm');
  });
});
