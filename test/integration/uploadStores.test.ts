import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { startS3Sink, S3Sink } from '../helpers/s3Sink';

/**
 * Several API replicas, each with a DATA_DIR of its own (as on separate machines): an image
 * uploaded through one is served by the others, from Postgres by default or from an S3 bucket.
 */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const dirs: string[] = [];
const ownDataDir = () => {
  dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-replica-')));
  return dirs[dirs.length - 1];
};
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const pathOf = (url: string) => new URL(url).pathname;

async function replicas(env: Record<string, string> = {}): Promise<[Harness, Harness]> {
  return Promise.all([startHarness({ env: { ...env, DATA_DIR: ownDataDir() } }), startHarness({ env: { ...env, DATA_DIR: ownDataDir() } })]);
}

describe('uploads in Postgres (the default store)', () => {
  let one: Harness;
  let two: Harness;
  let p: ProjectFixture;
  beforeAll(async () => {
    [one, two] = await replicas();
    p = await createProjectFixture(one);
  });
  afterAll(async () => Promise.all([one?.stop(), two?.stop()]));

  it('serves an image uploaded through one replica from another, byte-identical, and nothing lands on either disk', async () => {
    const res = await one.http.post('/uploads/image').set(bearer(p.secretKey)).attach('file', PNG, 'logo.png');
    expect(res.status).toBe(201);
    const served = await two.http.get(pathOf(res.body.url)).buffer(true);
    expect(served.status).toBe(200);
    expect(served.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(served.body as Buffer, PNG)).toBe(0);
    expect(fs.existsSync(path.join(one.config.dataDir, 'uploads'))).toBe(false);
  });

  it('removes the images with the project', async () => {
    const res = await one.http.post('/uploads/image').set(bearer(p.secretKey)).attach('file', PNG, 'logo.png');
    expect((await two.http.delete(`/users/@me/projects/${p.projectId}`).set('Cookie', p.cookie)).status).toBe(204);
    expect((await one.http.get(pathOf(res.body.url))).status).toBe(404);
    expect(await one.deps.knex('uploads').where({ project_id: p.projectId }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });
});

describe('uploads in an S3-compatible bucket (UPLOAD_STORE=s3)', () => {
  let sink: S3Sink;
  let one: Harness;
  let two: Harness;
  let p: ProjectFixture;
  beforeAll(async () => {
    sink = await startS3Sink({ bucket: 'images', accessKeyId: 'AKIATESTSINK' });
    [one, two] = await replicas({
      UPLOAD_STORE: 's3',
      S3_BUCKET: 'images',
      S3_ENDPOINT: sink.url,
      S3_REGION: 'eu-west-1',
      S3_ACCESS_KEY_ID: 'AKIATESTSINK',
      S3_SECRET_ACCESS_KEY: 'sink-secret',
      S3_FORCE_PATH_STYLE: 'true',
    });
    p = await createProjectFixture(one);
  });
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await sink?.stop();
  });

  it('puts the image in the bucket under the project and serves it from any replica', async () => {
    const res = await one.http.post('/uploads/image').set(bearer(p.secretKey)).attach('file', PNG, 'logo.png');
    expect(res.status).toBe(201);
    const name = res.body.url.split('/').pop();
    const stored = sink.objects.get(`${p.projectId}/${name}`);
    expect(stored && Buffer.compare(stored.body, PNG)).toBe(0);
    expect(stored?.contentType).toBe('image/png');
    expect(await one.deps.knex('uploads').where({ project_id: p.projectId }).count({ n: '*' }).first()).toEqual({ n: 0 });

    const served = await two.http.get(pathOf(res.body.url)).buffer(true);
    expect(served.status).toBe(200);
    expect(Buffer.compare(served.body as Buffer, PNG)).toBe(0);
    expect((await two.http.get(`/uploads/${p.projectId}/${'A'.repeat(24)}.png`)).status).toBe(404);
    expect(sink.unsigned).toBe(0);
  });

  it("empties the project's prefix when the project is deleted, and only that prefix", async () => {
    const other = await createProjectFixture(one);
    await one.http.post('/uploads/image').set(bearer(p.secretKey)).attach('file', PNG, 'a.png');
    const kept = await one.http.post('/uploads/image').set(bearer(other.secretKey)).attach('file', PNG, 'b.png');
    expect((await two.http.delete(`/users/@me/projects/${p.projectId}`).set('Cookie', p.cookie)).status).toBe(204);
    expect([...sink.objects.keys()].filter((k) => k.startsWith(`${p.projectId}/`))).toEqual([]);
    expect((await two.http.get(pathOf(kept.body.url))).status).toBe(200);
  });

  it('answers 503 in the error envelope when the bucket is unreachable, and stores nothing', async () => {
    const down = await startHarness({
      env: {
        DATA_DIR: ownDataDir(),
        UPLOAD_STORE: 's3',
        S3_BUCKET: 'images',
        S3_ENDPOINT: 'http://127.0.0.1:9',
        S3_ACCESS_KEY_ID: 'AKIATESTSINK',
        S3_SECRET_ACCESS_KEY: 'x',
        S3_FORCE_PATH_STYLE: 'true',
      },
    });
    try {
      const before = sink.objects.size;
      const res = await down.http
        .post('/uploads/image')
        .set(bearer((await createProjectFixture(down)).secretKey))
        .attach('file', PNG, 'logo.png');
      expect(res.status).toBe(503);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(sink.objects.size).toBe(before);
    } finally {
      await down.stop();
    }
  });
});
