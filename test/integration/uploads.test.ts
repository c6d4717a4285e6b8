import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { removeStaleUploads, uploadTempDir } from '../../lib/storage';

let h: Harness;
let a: ProjectFixture;
let b: ProjectFixture;

// A real 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0x80, 0, 0])]);

beforeAll(async () => {
  // A data directory of its own, so the temporary-file check below sees only this file's uploads.
  h = await startHarness({ env: { APP_URL: 'https://mail.example.test', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'svc-uploads-test-')) } });
  [a, b] = await Promise.all([createProjectFixture(h, 'a'), createProjectFixture(h, 'b')]);
});
afterAll(() => h?.stop());

const upload = (p: ProjectFixture, content: Buffer, filename: string, contentType = 'image/png') =>
  h.http.post('/uploads/image').set(bearer(p.secretKey)).attach('file', content, { filename, contentType });
const pathOf = (url: string) => url.replace('https://mail.example.test', '');

describe('POST /uploads/image', () => {
  it('stores a PNG and serves it back byte-identical at its public URL, with its type and nosniff', async () => {
    const res = await upload(a, PNG, 'logo.png');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      url: expect.stringMatching(new RegExp(`^https://mail\\.example\\.test/uploads/${a.projectId}/[0-9A-Za-z]+\\.png$`)),
      size: PNG.length,
      contentType: 'image/png',
    });
    const served = await h.http.get(pathOf(res.body.url)).buffer(true);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(served.body as Buffer, PNG)).toBe(0);
  });

  it('types a file by its content, not its name', async () => {
    const res = await upload(a, GIF, 'picture.png');
    expect(res.status).toBe(201);
    expect(res.body.contentType).toBe('image/gif');
    expect(res.body.url).toMatch(/\.gif$/);
  });

  it('refuses a renamed text file and SVG with 415', async () => {
    const text = await upload(a, Buffer.from('just some text, not an image\n'), 'notes.png');
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const svg = await upload(a, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), 'x.svg', 'image/svg+xml');
    expect(svg.status).toBe(415);
  });

  it('answers 413 above 5 MB', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    const res = await upload(a, big, 'big.png');
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('rejects a missing file with 422 and the public key with 401', async () => {
    const none = await h.http.post('/uploads/image').set(bearer(a.secretKey)).field('other', 'x');
    expect(none.status).toBe(422);
    const pub = await h.http.post('/uploads/image').set(bearer(a.publicKey)).attach('file', PNG, 'a.png');
    expect(pub.status).toBe(401);
    expect(pub.body.error.code).toBe('INVALID_API_KEY');
  });
});

describe('temporary upload files', () => {
  it('are gone after every multipart request: stored, refused, or an import', async () => {
    const dir = uploadTempDir(h.config.dataDir);
    expect((await upload(a, PNG, 'ok.png')).status).toBe(201);
    expect((await upload(a, Buffer.from('not an image'), 'x.png')).status).toBe(415);
    const csv = await h.http.post('/contacts/import').set(bearer(a.secretKey)).attach('file', Buffer.from('email\nx@example.test\n'), 'c.csv');
    expect(csv.status).toBe(202);
    const bad = await h.http.post('/contacts/import').set(bearer(a.secretKey)).attach('file', Buffer.from('name\nx\n'), 'c.csv');
    expect(bad.status).toBe(422);
    expect(fs.existsSync(dir)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('left behind by a killed process are removed at the next start once an hour old, not sooner', async () => {
    const dir = uploadTempDir(h.config.dataDir);
    const [old, fresh] = [path.join(dir, 'left-old'), path.join(dir, 'left-fresh')];
    fs.writeFileSync(old, 'x');
    fs.writeFileSync(fresh, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(old, twoHoursAgo, twoHoursAgo);
    expect(await removeStaleUploads(h.config.dataDir)).toBe(1);
    expect(fs.readdirSync(dir)).toEqual(['left-fresh']);
    fs.rmSync(fresh);
  });
});

describe('GET /uploads/:project/:file', () => {
  it("does not serve one project's image under another project's path, nor any name outside the stored pattern", async () => {
    const res = await upload(a, PNG, 'logo.png');
    const name = res.body.url.split('/').pop();
    expect((await h.http.get(`/uploads/${b.projectId}/${name}`)).status).toBe(404);
    for (const bad of ['..%2F..%2Fjwt-secret', '.partial', 'x.svg', `${name}.html`, `${'a'.repeat(30)}.png`]) {
      const r = await h.http.get(`/uploads/${a.projectId}/${bad}`);
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('NOT_FOUND');
    }
  });
});
