import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { linksFor, verifySubscriptionToken } from '../../lib/unsubscribe';
import { campaignActivities } from '../../activities/campaigns';

/** Topics (docs/api.md "Topics"): per-topic consent under the global flag, the preference center, topic campaigns and steps. */

let h: Harness;
let sink: SendgridSink;
const DOMAIN = 'topics.example.com';

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

/** A project of its own with a verified domain, so "ALL" means exactly the contacts a test makes. */
async function project(): Promise<ProjectFixture> {
  const fx = await createProjectFixture(h);
  await verifiedDomain(h, fx.projectId, DOMAIN);
  return fx;
}

const api = (fx: ProjectFixture) => {
  const key = bearer(fx.secretKey);
  return {
    topic: async (body: Record<string, unknown>) => {
      const res = await h.http.post('/topics').set(key).send(body);
      expect(res.status).toBe(201);
      return res.body as { id: string; slug: string; name: string };
    },
    contact: async (body: Record<string, unknown>) => {
      const res = await h.http.post('/contacts').set(key).send(body);
      expect([200, 201]).toContain(res.status);
      return res.body as { id: string; email: string; topics: Record<string, boolean> };
    },
    get: async (id: string) => (await h.http.get(`/contacts/${id}`).set(key)).body,
    patch: (id: string, body: Record<string, unknown>) => h.http.patch(`/contacts/${id}`).set(key).send(body),
    key,
  };
};

const events = async (contactId: string, prefix = 'contact.') =>
  (await h.deps.knex('events').where({ contact_id: contactId }).andWhere('name', 'like', `${prefix}%`).orderBy('created_at').select('name', 'data')).map(
    (e: any) => ({
      name: e.name,
      ...e.data,
    }),
  );
const pathOf = (url: string) => new URL(url).pathname;

describe('topics resource', () => {
  it('creates, lists, patches and deletes topics; slugs are derived or given, unique, and fixed', async () => {
    const fx = await project();
    const a = api(fx);
    const news = await a.topic({ name: 'Product News!', description: 'What we ship' });
    expect(news).toMatchObject({ name: 'Product News!', slug: 'product-news', description: 'What we ship', defaultSubscribed: false, public: true });
    const again = await a.topic({ name: 'Product news' });
    expect(again.slug).toBe('product-news-2');
    const digest = await a.topic({ name: 'Weekly digest', slug: 'digest', defaultSubscribed: true, public: false });
    expect(digest).toMatchObject({ slug: 'digest', defaultSubscribed: true, public: false });

    expect((await h.http.post('/topics').set(a.key).send({ name: 'Other', slug: 'digest' })).status).toBe(409);
    expect((await h.http.post('/topics').set(a.key).send({ name: 'Bad', slug: 'Not A Slug' })).status).toBe(422);
    expect((await h.http.post('/topics').set(a.key).send({ name: 'Bad', slug: news.id })).status).toBe(422);

    const list = await h.http.get('/topics').set(a.key);
    expect(list.status).toBe(200);
    expect(list.body.data.map((t: any) => t.slug)).toEqual(['product-news', 'product-news-2', 'digest']);

    const patched = await h.http.patch(`/topics/${digest.id}`).set(a.key).send({ name: 'Digest', public: true });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Digest', slug: 'digest', public: true });
    expect((await h.http.patch(`/topics/${digest.id}`).set(a.key).send({ slug: 'other' })).status).toBe(422);

    // Another project's topic is not this one's.
    const other = await project();
    expect((await h.http.patch(`/topics/${digest.id}`).set(bearer(other.secretKey)).send({ name: 'x' })).status).toBe(404);
    expect((await h.http.delete(`/topics/${digest.id}`).set(bearer(other.secretKey))).status).toBe(404);

    expect((await h.http.delete(`/topics/${again.id}`).set(a.key)).status).toBe(204);
    expect((await h.http.delete(`/topics/${again.id}`).set(a.key)).status).toBe(404);
  });

  it('refuses to delete a topic an unfinished campaign or a SEND_EMAIL step names', async () => {
    const fx = await project();
    const a = api(fx);
    const t = await a.topic({ name: 'Launches' });
    const c = await h.http
      .post('/campaigns')
      .set(a.key)
      .send({ name: 'c', subject: 's', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', topic: 'launches' });
    expect(c.status).toBe(201);
    expect(c.body.data.topic).toBe(t.id);
    const refused = await h.http.delete(`/topics/${t.id}`).set(a.key);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/campaign "c"/);
    expect((await h.http.delete(`/campaigns/${c.body.data.id}`).set(a.key)).status).toBe(204);

    const wf = workflowApi(h, fx);
    const built = await wf.build('topic.step', { send: { type: 'SEND_EMAIL', config: { subject: 's', body: 'b', from: `news@${DOMAIN}`, topic: t.id } } }, [
      ['trigger', 'send'],
    ]);
    expect((await h.http.delete(`/topics/${t.id}`).set(a.key)).status).toBe(409);
    expect((await wf.del(built.id)).status).toBe(204);
    expect((await h.http.delete(`/topics/${t.id}`).set(a.key)).status).toBe(204);

    // Naming an unknown topic is a 422 on campaigns and steps alike.
    const unknown = await h.http
      .post('/campaigns')
      .set(a.key)
      .send({ name: 'c', subject: 's', body: '<p>b</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', topic: 'nope' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.errors[0].field).toBe('topic');
    const created = await wf.create({ name: 'w', eventName: 'x' });
    const step = await wf.addStep(created.body.id, { type: 'SEND_EMAIL', config: { subject: 's', body: 'b', from: `news@${DOMAIN}`, topic: 'nope' } });
    expect(step.status).toBe(422);
    expect(JSON.stringify(step.body)).toMatch(/topic not found/);
  });
});

describe('contact topic states', () => {
  it('are set on POST/PATCH /contacts, /v1/track and /v1/send by id or slug; unset ones follow the default', async () => {
    const fx = await project();
    const a = api(fx);
    const news = await a.topic({ name: 'News' });
    await a.topic({ name: 'Digest', defaultSubscribed: true });

    const c = await a.contact({ email: uniqueEmail('states'), topics: { news: true } });
    expect(c.topics).toEqual({ news: true, digest: true });
    // A new contact's choices are stored but emit no events (as for `subscribed`).
    expect(await events(c.id)).toEqual([]);

    const off = await a.patch(c.id, { topics: { [news.id]: false, digest: false } });
    expect(off.status).toBe(200);
    expect(off.body.topics).toEqual({ news: false, digest: false });
    expect(off.body.subscribed).toBe(true);
    expect(await events(c.id)).toEqual([
      expect.objectContaining({ name: 'contact.topic.unsubscribed', topic: expect.any(String), source: 'api' }),
      expect.objectContaining({ name: 'contact.topic.unsubscribed', source: 'api' }),
    ]);
    expect((await events(c.id)).map((e) => e.topic).sort()).toEqual(['digest', 'news']);

    // The same choice again changes nothing and records nothing.
    await a.patch(c.id, { topics: { news: false } });
    expect(await events(c.id)).toHaveLength(2);

    const unknown = await a.patch(c.id, { topics: { nope: true } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.errors[0].field).toBe('topics.nope');

    const tracked = await h.http
      .post('/v1/track')
      .set(bearer(fx.publicKey))
      .send({ email: c.email, event: 'signed-up', topics: { news: true } });
    expect(tracked.status).toBe(200);
    expect((await a.get(c.id)).topics).toEqual({ news: true, digest: false });
    expect((await events(c.id)).at(-1)).toMatchObject({ name: 'contact.topic.subscribed', topic: 'news', topicId: news.id, source: 'track' });

    const sent = await h.http
      .post('/v1/send')
      .set(a.key)
      .send({ to: c.email, subject: 's', body: '<p>b</p>', from: `tx@${DOMAIN}`, topics: { digest: true } });
    expect(sent.status).toBe(200);
    expect((await a.get(c.id)).topics).toEqual({ news: true, digest: true });
    expect((await events(c.id)).at(-1)).toMatchObject({ name: 'contact.topic.subscribed', topic: 'digest', source: 'send' });

    expect(
      (
        await h.http
          .post('/v1/track')
          .set(bearer(fx.publicKey))
          .send({ email: c.email, event: 'x', topics: { nope: true } })
      ).status,
    ).toBe(422);
  });

  it('keeps contact.topic.* reserved for the service', async () => {
    const fx = await project();
    const res = await h.http.post('/v1/track').set(bearer(fx.publicKey)).send({ email: uniqueEmail(), event: 'contact.topic.subscribed' });
    expect(res.status).toBe(422);
  });

  it('filter trees select by topic.<slug> (choice, else default) in segments', async () => {
    const fx = await project();
    const a = api(fx);
    await a.topic({ name: 'News' });
    await a.topic({ name: 'Digest', defaultSubscribed: true });
    const yes = await a.contact({ email: uniqueEmail('yes'), topics: { news: true, digest: false } });
    const no = await a.contact({ email: uniqueEmail('no'), topics: { news: false } });
    const unset = await a.contact({ email: uniqueEmail('unset') });
    const members = async (field: string, operator: string, value: unknown) => {
      const seg = await h.http
        .post('/segments')
        .set(a.key)
        .send({ name: `s ${field} ${operator} ${value} ${Math.random()}`, condition: { logic: 'AND', groups: [{ filters: [{ field, operator, value }] }] } });
      expect(seg.status).toBe(201);
      const listed = await h.http.get(`/segments/${seg.body.id}/contacts`).query({ pageSize: 100 }).set(a.key);
      return listed.body.data.map((c: any) => c.id).sort();
    };
    expect(await members('topic.news', 'equals', true)).toEqual([yes.id]);
    expect(await members('topic.news', 'notEquals', true)).toEqual([no.id, unset.id].sort());
    expect(await members('topic.digest', 'equals', true)).toEqual([no.id, unset.id].sort());
    // No such topic: nobody is subscribed to it.
    expect(await members('topic.ghost', 'equals', true)).toEqual([]);
    const bad = await h.http
      .post('/segments')
      .set(a.key)
      .send({ name: 'bad', condition: { logic: 'AND', groups: [{ filters: [{ field: 'topic.news', operator: 'contains', value: 'x' }] }] } });
    expect(bad.status).toBe(400);
  });
});

describe('campaigns and workflow steps sent as a topic', () => {
  it('reach only contacts subscribed globally and to the topic; the one-click header leaves that topic only', async () => {
    const fx = await project();
    const a = api(fx);
    const news = await a.topic({ name: 'News' });
    await a.topic({ name: 'Digest' });
    const fan = await a.contact({ email: uniqueEmail('fan'), topics: { news: true, digest: true } });
    const optedOut = await a.contact({ email: uniqueEmail('out'), topics: { news: false } });
    const never = await a.contact({ email: uniqueEmail('never') });
    const global = await a.contact({ email: uniqueEmail('global'), subscribed: false, topics: { news: true } });

    const created = await h.http
      .post('/campaigns')
      .set(a.key)
      .send({
        name: 'News 1',
        subject: 'News',
        body: '<p>Hi</p><a href="{{ unsubscribeUrl }}">unsubscribe</a> <a href="{{ manageUrl }}">manage</a>',
        from: `news@${DOMAIN}`,
        audienceType: 'ALL',
        topic: 'news',
      });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await h.http.post(`/campaigns/${id}/send`).set(a.key).send({})).status).toBe(200);
    await eventually(async () => (await h.http.get(`/campaigns/${id}`).set(a.key)).body.status === 'SENT');
    const got = sink.recipients().filter((r) => [fan, optedOut, never, global].some((c) => c.email === r.email));
    expect(got.map((r) => r.email)).toEqual([fan.email]);
    expect((await h.http.get(`/campaigns/${id}`).set(a.key)).body.totalRecipients).toBe(1);

    // The header and the body's unsubscribe link are signed for the topic; the manage link is not.
    const header = got[0].headers['List-Unsubscribe'];
    const oneClick = header.slice(1, -1);
    expect(verifySubscriptionToken(h.config.jwtSecret, pathOf(oneClick).split('/').pop()!)).toEqual({
      projectId: fx.projectId,
      contactId: fan.id,
      topicId: news.id,
    });
    expect(got[0].html).toContain(oneClick);
    expect(got[0].html).toContain(linksFor(h.config, fx.projectId, fan.id).manageUrl);

    const res = await h.http.post(pathOf(oneClick)).type('form').send('List-Unsubscribe=One-Click');
    expect(res.status).toBe(200);
    expect(res.text).toContain('You have been unsubscribed from News');
    const after = await a.get(fan.id);
    expect(after.subscribed).toBe(true);
    expect(after.topics).toEqual({ news: false, digest: true });
    expect((await events(fan.id)).at(-1)).toMatchObject({ name: 'contact.topic.unsubscribed', topic: 'news', source: 'one-click' });
  });

  it("a test send of a topic campaign carries the topic's links", async () => {
    const fx = await project();
    const a = api(fx);
    const news = await a.topic({ name: 'News' });
    const c = await a.contact({ email: uniqueEmail('tester'), topics: { news: true } });
    const created = await h.http
      .post('/campaigns')
      .set(a.key)
      .send({ name: 't', subject: 'T', body: '<a href="{{ unsubscribeUrl }}">u</a>', from: `news@${DOMAIN}`, audienceType: 'ALL', topic: news.id });
    expect((await h.http.post(`/campaigns/${created.body.data.id}/test`).set(a.key).send({ email: c.email })).status).toBe(200);
    const mail = await eventually(async () => sink.recipients().find((r) => r.email === c.email));
    const token = pathOf(mail.headers['List-Unsubscribe'].slice(1, -1)).split('/').pop()!;
    expect(verifySubscriptionToken(h.config.jwtSecret, token)).toEqual({ projectId: fx.projectId, contactId: c.id, topicId: news.id });
  });

  it('checks the topic again at hand-over: a contact who left the topic after the snapshot gets nothing', async () => {
    const fx = await project();
    const a = api(fx);
    await a.topic({ name: 'News' });
    const stays = await a.contact({ email: uniqueEmail('stays'), topics: { news: true } });
    const leaves = await a.contact({ email: uniqueEmail('leaves'), topics: { news: true } });
    const created = await h.http
      .post('/campaigns')
      .set(a.key)
      .send({ name: 'late', subject: 'Late', body: '<p>x</p>', from: `news@${DOMAIN}`, audienceType: 'ALL', topic: 'news' });
    const id = created.body.data.id;
    // The snapshot as sending began, with both in it; then one leaves the topic before any batch ran.
    await h.deps.knex('campaign_recipients').insert([stays, leaves].map((c) => ({ campaign_id: id, contact_id: c.id })));
    await h.deps.knex('campaigns').where({ id }).update({ status: 'SENDING', started_at: h.deps.knex.fn.now(), total_recipients: 2 });
    expect((await a.patch(leaves.id, { topics: { news: false } })).status).toBe(200);
    await campaignActivities(h.deps).resumeCampaigns();
    await eventually(async () => (await h.http.get(`/campaigns/${id}`).set(a.key)).body.status === 'SENT');
    const got = sink.recipients().filter((r) => r.email === stays.email || r.email === leaves.email);
    expect(got.map((r) => r.email)).toEqual([stays.email]);
  });

  it('a SEND_EMAIL step naming a topic skips contacts not subscribed to it and scopes its links', async () => {
    const fx = await project();
    const a = api(fx);
    const news = await a.topic({ name: 'News' });
    const wf = workflowApi(h, fx);
    const built = await wf.build(
      'topic.go',
      {
        send: {
          type: 'SEND_EMAIL',
          config: { subject: 'Topic mail', body: '<a href="{{ unsubscribeUrl }}">u</a>', from: `news@${DOMAIN}`, type: 'TRANSACTIONAL', topic: 'news' },
        },
      },
      [['trigger', 'send']],
      { enabled: true },
    );
    const yes = await a.contact({ email: uniqueEmail('wf-yes'), topics: { news: true } });
    const no = await a.contact({ email: uniqueEmail('wf-no') });
    for (const c of [yes, no]) expect((await wf.track(c.email, 'topic.go')).status).toBe(200);
    const done = async (contactId: string) => {
      const ex = await wf.executionOf(built.id, contactId);
      return wf.until(built.id, ex.id, ['COMPLETED', 'FAILED']);
    };
    const skipped = await done(no.id);
    expect(skipped.steps.find((s: any) => s.type === 'SEND_EMAIL')).toMatchObject({ status: 'SKIPPED', output: { reason: 'topic_unsubscribed' } });
    const sent = await done(yes.id);
    expect(sent.status).toBe('COMPLETED');
    const mail = await eventually(async () => sink.recipients().find((r) => r.email === yes.email));
    expect(sink.recipients().some((r) => r.email === no.email)).toBe(false);
    // Even a TRANSACTIONAL email sent as a topic carries the topic's one-click header.
    const token = pathOf(mail.headers['List-Unsubscribe'].slice(1, -1)).split('/').pop()!;
    expect(verifySubscriptionToken(h.config.jwtSecret, token)).toEqual({ projectId: fx.projectId, contactId: yes.id, topicId: news.id });
  });
});

describe('preference center', () => {
  it('lists the public topics with their states; GET changes nothing; the form POST changes them', async () => {
    const fx = await project();
    const a = api(fx);
    const news = await a.topic({ name: 'News', description: 'What we ship <b>' });
    const digest = await a.topic({ name: 'Digest', defaultSubscribed: true });
    await a.topic({ name: 'Internal', public: false });
    const c = await a.contact({ email: uniqueEmail('pc'), topics: { internal: true } });
    const { manageUrl, unsubscribeUrl } = linksFor(h.config, fx.projectId, c.id);

    const page = await h.http.get(pathOf(manageUrl));
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(page.text).not.toMatch(/<script/i);
    expect(page.text).toContain(`<form method="post" action="${manageUrl}">`);
    expect(page.text).toContain(`<input type="checkbox" name="topics" value="${news.id}"> News`);
    expect(page.text).toContain(`<input type="checkbox" name="topics" value="${digest.id}" checked> Digest`);
    expect(page.text).toContain('What we ship &lt;b&gt;');
    expect(page.text).not.toContain('Internal');
    expect(page.text).toContain(`<form method="post" action="${unsubscribeUrl}"><button type="submit">Unsubscribe from everything</button></form>`);
    // A GET (a link scanner's) changes nothing and records nothing.
    expect((await a.get(c.id)).topics).toEqual({ news: false, digest: true, internal: true });
    expect(await events(c.id)).toEqual([]);

    // The browser's submission: news checked, digest left unchecked; the private topic is not on the form.
    const saved = await h.http.post(pathOf(manageUrl)).type('form').send(`shown=${news.id}&shown=${digest.id}&topics=${news.id}`);
    expect(saved.status).toBe(200);
    expect(saved.text).toContain('Your preferences were saved.');
    expect(saved.text).toContain(`value="${news.id}" checked> News`);
    expect((await a.get(c.id)).topics).toEqual({ news: true, digest: false, internal: true });
    expect((await events(c.id)).map((e) => [e.name, e.topic, e.source])).toEqual([
      ['contact.topic.subscribed', 'news', 'link'],
      ['contact.topic.unsubscribed', 'digest', 'link'],
    ]);

    // A forged token changes nothing.
    expect((await h.http.post('/manage/garbage').type('form').send(`shown=${news.id}`)).status).toBe(404);

    // Unsubscribe from everything: the global flag; the page then offers to subscribe again.
    expect((await h.http.post(pathOf(unsubscribeUrl)).type('form').send('')).status).toBe(200);
    const off = await h.http.get(pathOf(manageUrl));
    expect(off.text).toContain('is unsubscribed from these emails.');
    expect(off.text).not.toContain('name="topics"');
    expect((await a.get(c.id)).subscribed).toBe(false);
  });
});
