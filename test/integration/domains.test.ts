import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { ensureSchedules, DOMAIN_VERIFICATION_SCHEDULE } from '../../worker/schedules';
import { isSenderDomainVerified } from '../../db/domains';
import { createResolver, DnsLookupError } from '../../services/dns';

let dns: TestDnsServer;
let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;

beforeAll(async () => {
  dns = await startDnsServer();
  h = await startHarness({ worker: true, env: { DNS_SERVERS: dns.address } });
  p = await createProjectFixture(h, 'domains');
  other = await createProjectFixture(h, 'domains-other');
});
afterAll(async () => {
  await h?.stop();
  await dns?.stop();
});

// Unique per test so the tests share nothing in the zone or the database.
const freshDomain = () => `d${crypto.randomBytes(5).toString('hex')}.example.test`;

async function addDomain(domain: string, key = p.secretKey) {
  const res = await h.http.post('/domains').set(bearer(key)).send({ domain });
  expect(res.status).toBe(201);
  return res.body;
}

/** Publishes the records a domain was asked for, as its owner would. */
function publish(records: { type?: string; name: string; value: string }[]) {
  const byName = new Map<string, string[]>();
  for (const r of records.filter((r) => r.type !== 'MX')) byName.set(r.name, [...(byName.get(r.name) ?? []), r.value]);
  for (const [name, values] of byName) dns.set(name, 'TXT', values);
  // MX values read `<priority> <exchange>`.
  for (const r of records.filter((r) => r.type === 'MX')) {
    const [priority, exchange] = r.value.split(' ');
    dns.set(r.name, 'MX', [{ priority: Number(priority), exchange }]);
  }
}

const record = (d: { records: any[] }, purpose: string) => d.records.find((r) => r.purpose === purpose);

describe('POST /domains', () => {
  it('returns the pending domain with the DNS records to publish', async () => {
    const domain = freshDomain();
    const body = await addDomain(domain.toUpperCase());
    expect(body).toMatchObject({
      id: expect.any(String),
      domain,
      projectId: p.projectId,
      status: 'PENDING',
      lastCheckedAt: null,
      verifiedAt: null,
      createdAt: expect.any(String),
    });
    expect(body.records).toEqual([
      {
        type: 'TXT',
        name: `_svc-verification.${domain}`,
        value: expect.stringMatching(/^svc-verification=[0-9A-Za-z]{20,}$/),
        purpose: 'ownership',
        required: true,
        valid: false,
        problem: null,
      },
      { type: 'TXT', name: domain, value: 'v=spf1 include:sendgrid.net ~all', purpose: 'spf', required: true, valid: false, problem: null },
      { type: 'TXT', name: `_dmarc.${domain}`, value: 'v=DMARC1; p=none;', purpose: 'dmarc', required: false, valid: false, problem: null },
      // The inbound server (docs/inbound.md), recommended: INBOUND_MX_HOST defaults to APP_URL's host.
      { type: 'MX', name: `inbound.${domain}`, value: '10 localhost', purpose: 'inbound', required: false, valid: false, problem: null },
    ]);
  });

  it('gives another project adding the same domain a different token', async () => {
    const domain = freshDomain();
    const mine = await addDomain(domain);
    const theirs = await addDomain(domain, other.secretKey);
    expect(record(theirs, 'ownership').value).not.toBe(record(mine, 'ownership').value);
  });

  it('answers 409 when the project already has the domain', async () => {
    const domain = freshDomain();
    await addDomain(domain);
    const again = await h.http
      .post('/domains')
      .set(bearer(p.secretKey))
      .send({ domain: `${domain}.` });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('answers 422 on a name that is not a domain', async () => {
    for (const domain of ['https://example.com/x', '10.0.0.1', 'nodot', 42]) {
      const res = await h.http.post('/domains').set(bearer(p.secretKey)).send({ domain });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'domain' })] });
    }
  });

  it('takes the secret key only', async () => {
    const res = await h.http.post('/domains').set(bearer(p.publicKey)).send({ domain: freshDomain() });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });
});

describe('GET /domains/:id/verify', () => {
  it('verifies a domain once its records are served, and lets its subdomains send', async () => {
    const domain = freshDomain();
    const created = await addDomain(domain);
    expect(await isSenderDomainVerified(h.deps.knex, p.projectId, `hello@${domain}`)).toBe(false);

    const before = await h.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey));
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ status: 'PENDING', verifiedAt: null, lastCheckedAt: expect.any(String) });

    publish(created.records.filter((r: any) => r.required));
    const res = await h.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, status: 'VERIFIED', verifiedAt: expect.any(String) });
    expect(res.body.records.map((r: any) => [r.purpose, r.valid])).toEqual([
      ['ownership', true],
      ['spf', true],
      ['dmarc', false],
      ['inbound', false],
    ]);

    expect(await isSenderDomainVerified(h.deps.knex, p.projectId, `hello@${domain}`)).toBe(true);
    expect(await isSenderDomainVerified(h.deps.knex, p.projectId, `news@mail.${domain.toUpperCase()}`)).toBe(true);
    expect(await isSenderDomainVerified(h.deps.knex, p.projectId, `hello@x${domain}`)).toBe(false);
    expect(await isSenderDomainVerified(h.deps.knex, other.projectId, `hello@${domain}`)).toBe(false);

    // Records disappearing later do not take the verification away.
    dns.set(record(created, 'ownership').name, 'TXT', []);
    const later = await h.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey));
    expect(later.body).toMatchObject({ status: 'VERIFIED', verifiedAt: res.body.verifiedAt });
    expect(record(later.body, 'ownership').valid).toBe(false);
  });

  it('keeps a domain with a wrong ownership TXT pending and says which record is wrong', async () => {
    const domain = freshDomain();
    const created = await addDomain(domain);
    publish(created.records.map((r: any) => (r.purpose === 'ownership' ? { ...r, value: 'svc-verification=not-the-token' } : r)));
    const res = await h.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('PENDING');
    expect(res.body.verifiedAt).toBeNull();
    expect(res.body.records.map((r: any) => [r.purpose, r.valid])).toEqual([
      ['ownership', false],
      ['spf', true],
      ['dmarc', true],
      ['inbound', true],
    ]);
    // The sentence the dashboard shows beside it; the records found carry none.
    expect(res.body.records.map((r: any) => r.problem)).toEqual([
      `The TXT records at _svc-verification.${domain} do not hold this project's verification value: publish it exactly as shown.`,
      null,
      null,
      null,
    ]);
  });

  it("says what is wrong in the request's language, and the exact English without Accept-Language", async () => {
    const domain = freshDomain();
    const created = await addDomain(domain);
    publish(
      created.records.map((r: any) =>
        r.purpose === 'spf' ? { ...r, value: 'v=spf1 include:_spf.google.com ~all' } : r.purpose === 'dmarc' ? { ...r, value: 'p=none' } : r,
      ),
    );
    const fr = await h.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey)).set('Accept-Language', 'fr-CH, en;q=0.5');
    expect(fr.status).toBe(200);
    expect(fr.headers.vary).toMatch(/Accept-Language/);
    expect(fr.body.records.map((r: any) => r.problem)).toEqual([
      null,
      `L’enregistrement SPF de ${domain} (« v=spf1 include:_spf.google.com ~all ») ne contient pas include:sendgrid.net : ajoutez-le avant le terme all final, comme dans la valeur indiquée.`,
      `Les enregistrements TXT de _dmarc.${domain} ne contiennent aucune politique DMARC (v=DMARC1) : publiez la valeur indiquée.`,
      null,
    ]);
    // Stored once, read in each reader's language: the list composes it again from what the check found.
    const listed = await h.http.get(`/domains/project/${p.projectId}`).set(bearer(p.secretKey)).set('Accept-Language', 'de');
    expect(listed.headers.vary).toMatch(/Accept-Language/);
    const de = listed.body.find((d: any) => d.id === created.id);
    expect(de.records.map((r: any) => r.problem)).toEqual([
      null,
      `Der SPF-Eintrag unter ${domain} („v=spf1 include:_spf.google.com ~all“) enthält include:sendgrid.net nicht: Fügen Sie es vor dem abschließenden all-Term ein, wie im angezeigten Wert.`,
      `Die TXT-Einträge unter _dmarc.${domain} enthalten keine DMARC-Richtlinie (v=DMARC1): Veröffentlichen Sie den angezeigten Wert.`,
      null,
    ]);
    // What the check found stays its own note, never a field of the answer.
    expect(Object.keys(de.records[1]).sort()).toEqual(['name', 'problem', 'purpose', 'required', 'type', 'valid', 'value']);
    const en = await h.http.get(`/domains/project/${p.projectId}`).set(bearer(p.secretKey));
    expect(en.body.find((d: any) => d.id === created.id).records.map((r: any) => r.problem)).toEqual([
      null,
      `The SPF record at ${domain} ("v=spf1 include:_spf.google.com ~all") does not carry include:sendgrid.net: add it before the final all term, as in the value shown.`,
      `The TXT records at _dmarc.${domain} hold no DMARC policy (v=DMARC1): publish the value shown.`,
      null,
    ]);
  });

  it("does not verify with another project's token for the same domain", async () => {
    const domain = freshDomain();
    const theirs = await addDomain(domain, other.secretKey);
    const mine = await addDomain(domain);
    publish(theirs.records);
    const res = await h.http.get(`/domains/${mine.id}/verify`).set(bearer(p.secretKey));
    expect(res.body.status).toBe('PENDING');
    const theirsChecked = await h.http.get(`/domains/${theirs.id}/verify`).set(bearer(other.secretKey));
    expect(theirsChecked.body.status).toBe('VERIFIED');
  });
});

describe('the domain-verification schedule', () => {
  it('verifies pending domains when its workflow runs', async () => {
    const created = await addDomain(freshDomain());
    publish(created.records);
    const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
    const client = new Client({ connection, namespace: h.config.temporal.namespace });
    const handle = client.schedule.getHandle(DOMAIN_VERIFICATION_SCHEDULE);
    let ensured: string[] = [];
    try {
      ensured = await ensureSchedules(client, h.taskQueue);
      // Calling it again (as every worker start does) must neither fail nor change the schedule.
      await ensureSchedules(client, h.taskQueue);
      const described = await handle.describe();
      expect(described.action).toMatchObject({ workflowType: 'domainVerification', taskQueue: h.taskQueue });
      expect(described.spec.intervals?.[0]?.every).toBe(5 * 60 * 1000);

      await handle.trigger();
      const verified = await eventually(async () => {
        const res = await h.http.get(`/domains/project/${p.projectId}`).set(bearer(p.secretKey));
        const mine = res.body.find((d: any) => d.id === created.id);
        return mine?.status === 'VERIFIED' && mine;
      });
      expect(verified.records.every((r: any) => r.valid)).toBe(true);
    } finally {
      for (const id of ensured)
        await client.schedule
          .getHandle(id)
          .delete()
          .catch(() => undefined);
      await connection.close();
    }
  });
});

describe('project scoping and deletion', () => {
  it("lists only the key's project and hides other projects' domains", async () => {
    const created = await addDomain(freshDomain());
    const list = await h.http.get(`/domains/project/${p.projectId}`).set(bearer(p.secretKey));
    expect(list.status).toBe(200);
    expect(list.body.map((d: any) => d.id)).toContain(created.id);
    expect(list.body.every((d: any) => d.projectId === p.projectId)).toBe(true);

    const foreignList = await h.http.get(`/domains/project/${p.projectId}`).set(bearer(other.secretKey));
    expect(foreignList.status).toBe(404);
    expect(foreignList.body.error.code).toBe('NOT_FOUND');
    expect((await h.http.get(`/domains/${created.id}/verify`).set(bearer(other.secretKey))).status).toBe(404);
    expect((await h.http.delete(`/domains/${created.id}`).set(bearer(other.secretKey))).status).toBe(404);
    // The other project's attempt changed nothing.
    expect((await h.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey))).status).toBe(200);
  });

  it('answers 404, not a database error, for ids that are not uuids', async () => {
    for (const path of ['/domains/not-a-uuid/verify', '/domains/project/not-a-uuid']) {
      const res = await h.http.get(path).set(bearer(p.secretKey));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await h.http.delete('/domains/123').set(bearer(p.secretKey))).status).toBe(404);
  });

  it('deletes with 204, then the domain is gone', async () => {
    const created = await addDomain(freshDomain());
    const del = await h.http.delete(`/domains/${created.id}`).set(bearer(p.secretKey));
    expect(del.status).toBe(204);
    expect((await h.http.delete(`/domains/${created.id}`).set(bearer(p.secretKey))).status).toBe(404);
    expect((await h.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey))).status).toBe(404);
    const list = await h.http.get(`/domains/project/${p.projectId}`).set(bearer(p.secretKey));
    expect(list.body.map((d: any) => d.id)).not.toContain(created.id);
  });
});

describe('DNS lookups', () => {
  it('joins TXT chunks, answers empty for absent names and types, and reads MX, A and AAAA', async () => {
    const name = freshDomain();
    const resolver = createResolver({ dnsServers: [dns.address] });
    dns.set(name, 'TXT', [['v=spf1 ', 'include:sendgrid.net ~all'], `k=rsa; p=${'A'.repeat(600)}`]);
    dns.set(name, 'MX', [{ exchange: `mx.${name}`, priority: 10 }]);
    dns.set(name, 'A', ['192.0.2.1']);
    dns.set(name, 'AAAA', ['2001:db8::1']);
    expect(await resolver.txt(name)).toEqual(expect.arrayContaining(['v=spf1 include:sendgrid.net ~all', `k=rsa; p=${'A'.repeat(600)}`]));
    expect(await resolver.mx(name)).toEqual([{ exchange: `mx.${name}`, priority: 10 }]);
    expect(await resolver.a(name)).toEqual(['192.0.2.1']);
    expect(await resolver.aaaa(name)).toEqual(['2001:db8::1']);
    expect(await resolver.txt(`missing.${name}`)).toEqual([]);
    dns.set(`mx-only.${name}`, 'MX', [{ exchange: `mx.${name}`, priority: 5 }]);
    expect(await resolver.txt(`mx-only.${name}`)).toEqual([]);
  });

  it('treats an unreachable DNS server as a failure, not as missing records', async () => {
    const dead = await startDnsServer();
    await dead.stop();
    await expect(createResolver({ dnsServers: [dead.address] }).txt('example.test')).rejects.toBeInstanceOf(DnsLookupError);

    const blind = await startHarness({ env: { DNS_SERVERS: dead.address } });
    try {
      const created = await addDomain(freshDomain());
      const res = await blind.http.get(`/domains/${created.id}/verify`).set(bearer(p.secretKey));
      expect(res.status).toBe(503);
      expect(res.body.error.message).toMatch(/DNS/);
      // A check that could not run records nothing.
      const row = await h.deps.knex('domains').where({ id: created.id }).first();
      expect(row.last_checked_at).toBeNull();
    } finally {
      await blind.stop();
    }
  });
});
