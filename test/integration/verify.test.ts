import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { createVerifier } from '../../services/verify';
import { createResolver } from '../../services/dns';

let dns: TestDnsServer;
let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  dns = await startDnsServer();
  h = await startHarness({ env: { DNS_SERVERS: dns.address } });
  p = await createProjectFixture(h);
});
afterAll(async () => {
  await h?.stop();
  await dns?.stop();
});

const verify = (email: unknown, harness = h, key = p.secretKey) => harness.http.post('/v1/verify').set(bearer(key)).send({ email });

describe('POST /v1/verify', () => {
  it('a domain with MX and A records is valid and has a website', async () => {
    dns.set('acme-mail.test', 'MX', [{ exchange: 'mx1.acme-mail.test', priority: 10 }]);
    dns.set('acme-mail.test', 'A', ['192.0.2.10']);
    const res = await verify('Jane+news@acme-mail.test');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        email: 'Jane+news@acme-mail.test',
        valid: true,
        isDisposable: false,
        isAlias: false,
        isTypo: false,
        isPlusAddressed: true,
        isPersonalEmail: false,
        domainExists: true,
        hasWebsite: true,
        hasMxRecords: true,
        reasons: [],
      },
    });
  });

  it('a domain without records is invalid and says why', async () => {
    const res = await verify('info@nothing-here.test');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ valid: false, domainExists: false, hasMxRecords: false, hasWebsite: false, isAlias: true });
    expect(res.body.data.reasons).toEqual([expect.stringMatching(/does not exist/)]);
  });

  it('a domain with only a website cannot receive mail', async () => {
    dns.set('www.brochure.test', 'AAAA', ['2001:db8::5']);
    dns.set('brochure.test', 'TXT', ['v=spf1 -all']);
    const res = await verify('jane@brochure.test');
    expect(res.body.data).toMatchObject({ valid: false, domainExists: false, hasWebsite: true, hasMxRecords: false });
  });

  it('flags a disposable provider even when it has MX records', async () => {
    dns.set('mailinator.com', 'MX', [{ exchange: 'mail.mailinator.com', priority: 10 }]);
    const res = await verify('someone@mailinator.com');
    expect(res.body.data).toMatchObject({
      valid: false,
      isDisposable: true,
      isPersonalEmail: false,
      hasMxRecords: true,
      reasons: ['Disposable email provider'],
    });
  });

  it('suggests the provider a misspelt domain meant', async () => {
    const res = await verify('jane@gmial.com');
    expect(res.body.data).toMatchObject({ isTypo: true, suggestion: 'jane@gmail.com' });
  });

  it('marks a free provider as personal', async () => {
    dns.set('gmail.com', 'MX', [{ exchange: 'gmail-smtp-in.l.google.com', priority: 5 }]);
    const res = await verify('jane@gmail.com');
    expect(res.body.data).toMatchObject({ valid: true, isPersonalEmail: true, isTypo: false });
    expect(res.body.data.suggestion).toBeUndefined();
  });

  it('refuses a malformed address with 422 invalid_string, like /v1/track', async () => {
    for (const email of ['not-an-email', 'jane..doe@acme-mail.test', 'jane@', '@acme-mail.test', 'jane@acme-mail']) {
      const res = await verify(email);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'email', code: 'invalid_string' })] });
    }
  });

  it('explains a well-formed address that breaks a delivery rule instead of refusing it', async () => {
    const res = await verify(`${'a'.repeat(65)}@acme-mail.test`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ valid: false, hasMxRecords: false });
    expect(res.body.data.reasons[0]).toMatch(/longer than 64/);
  });

  it('refuses a public key with INVALID_API_KEY', async () => {
    const res = await verify('jane@acme-mail.test', h, p.publicKey);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('answers 422 with field errors when email is missing or not a string', async () => {
    const missing = await h.http.post('/v1/verify').set(bearer(p.secretKey)).send({});
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', errors: [expect.objectContaining({ field: 'email', code: 'invalid_type' })] });
    const number = await verify(42);
    expect(number.status).toBe(422);
    const tooLong = await verify(`${'a'.repeat(320)}@x.test`);
    expect(tooLong.body.error.errors[0]).toMatchObject({ field: 'email', code: 'too_big' });
  });
});

describe('per-domain cache', () => {
  it('keeps answering from the cache within the TTL', async () => {
    dns.set('cached.test', 'MX', [{ exchange: 'mx.cached.test', priority: 10 }]);
    expect((await verify('a@cached.test')).body.data.hasMxRecords).toBe(true);
    dns.set('cached.test', 'MX', []);
    expect((await verify('b@cached.test')).body.data).toMatchObject({ hasMxRecords: true, valid: true });
  });

  it('asks DNS every time with a TTL of 0', async () => {
    const fresh = await startHarness({ env: { DNS_SERVERS: dns.address } });
    try {
      fresh.deps.runtime.verifier = createVerifier({ resolver: createResolver(fresh.config), cacheTtlMs: 0 });
      const own = await createProjectFixture(fresh, 'no cache');
      dns.set('uncached.test', 'MX', [{ exchange: 'mx.uncached.test', priority: 10 }]);
      expect((await verify('a@uncached.test', fresh, own.secretKey)).body.data.hasMxRecords).toBe(true);
      dns.set('uncached.test', 'MX', []);
      expect((await verify('b@uncached.test', fresh, own.secretKey)).body.data).toMatchObject({ hasMxRecords: false, valid: false });
    } finally {
      await fresh.stop();
    }
  });
});
