import {
  createVerifier,
  isAlias,
  isDisposableDomain,
  isPersonalDomain,
  isPlusAddressed,
  parseAddress,
  Resolver,
  TtlCache,
  typoSuggestion,
} from '../../services/verify';

/** In-memory DNS: records per name, and a count of the questions asked. */
function fakeResolver(zone: Record<string, { mx?: string[]; a?: string[]; aaaa?: string[] }>) {
  const asked: string[] = [];
  const answer = (type: 'mx' | 'a' | 'aaaa') => async (name: string) => {
    asked.push(`${type} ${name}`);
    return zone[name]?.[type] ?? [];
  };
  const resolver = {
    mx: async (name: string) => (await answer('mx')(name)).map((exchange) => ({ exchange, priority: 10 })),
    a: answer('a'),
    aaaa: answer('aaaa'),
  } as unknown as Resolver;
  return { resolver, asked };
}

describe('format', () => {
  it.each(['jane@example.com', 'jane.doe+tag@mail.example.co.uk', "o'brien@example.org", 'x@xn--bcher-kva.example', 'a@b.io'])('accepts %s', (email) => {
    expect(parseAddress(email)).toMatchObject({ problems: [], address: { domain: email.split('@')[1].toLowerCase() } });
  });

  it.each([
    ['plainaddress', /no @/],
    ['@example.com', /nothing before/],
    ['jane@', /no domain/],
    ['.jane@example.com', /dot/],
    ['ja..ne@example.com', /dot/],
    ['ja ne@example.com', /characters not allowed/],
    ['jane@localhost', /top-level/],
    ['jane@exa_mple.com', /not allowed in a domain/],
    ['jane@-example.com', /not allowed in a domain/],
    ['jane@example.c0m', /invalid top-level/],
    [`${'a'.repeat(65)}@example.com`, /longer than 64/],
    [`jane@${'a'.repeat(64)}.com`, /longer than 63/],
    [`jane@${'abcdefghi.'.repeat(26)}com`, /longer than 253/],
  ])('refuses %s with a reason', (email, reason) => {
    const { address, problems } = parseAddress(email);
    expect(address).toBeUndefined();
    expect(problems.join(' ')).toMatch(reason);
  });

  it('lower-cases the domain and converts an IDN to its ASCII form', () => {
    expect(parseAddress('Jane@Example.COM').address).toEqual({ local: 'Jane', domain: 'example.com' });
    expect(parseAddress('jane@bücher.example').address?.domain).toBe('xn--bcher-kva.example');
  });
});

describe('classifications', () => {
  it('plus addressing needs a mailbox name before the +', () => {
    expect(isPlusAddressed('jane+news')).toBe(true);
    expect(isPlusAddressed('jane')).toBe(false);
    expect(isPlusAddressed('+news')).toBe(false);
  });

  it('role addresses are aliases, whatever their case, separators or tag', () => {
    for (const local of ['info', 'Admin', 'support+x', 'no-reply', 'no_reply', 'noreply', 'postmaster']) expect(isAlias(local)).toBe(true);
    for (const local of ['jane', 'information', 'adminjane']) expect(isAlias(local)).toBe(false);
  });

  it('disposable domains, including their subdomains', () => {
    expect(isDisposableDomain('mailinator.com')).toBe(true);
    expect(isDisposableDomain('box.mailinator.com')).toBe(true);
    expect(isDisposableDomain('gmail.com')).toBe(false);
    expect(isDisposableDomain('com')).toBe(false);
  });

  it('personal means a free provider, not a company or a throwaway domain', () => {
    expect(isPersonalDomain('gmail.com')).toBe(true);
    expect(isPersonalDomain('GMX.net')).toBe(true);
    expect(isPersonalDomain('acme-widgets.test')).toBe(false);
    expect(isPersonalDomain('mailinator.com')).toBe(false);
  });

  it('suggests the well-known provider a domain misspells, keeping the mailbox name', () => {
    expect(typoSuggestion({ local: 'Jane', domain: 'gmial.com' })).toBe('Jane@gmail.com');
    expect(typoSuggestion({ local: 'jane', domain: 'hotmial.com' })).toBe('jane@hotmail.com');
    expect(typoSuggestion({ local: 'jane', domain: 'gmail.co' })).toBe('jane@gmail.com');
  });

  it('does not "fix" correct providers or unrelated company domains', () => {
    expect(typoSuggestion({ local: 'jane', domain: 'gmail.com' })).toBeUndefined();
    expect(typoSuggestion({ local: 'jane', domain: 'gmx.net' })).toBeUndefined();
    expect(typoSuggestion({ local: 'jane', domain: 'verified.test' })).toBeUndefined();
    expect(typoSuggestion({ local: 'jane', domain: 'startup.io' })).toBeUndefined();
  });
});

describe('TtlCache', () => {
  it('expires entries after the TTL and evicts the oldest beyond its size', () => {
    let now = 0;
    const cache = new TtlCache<number>(1000, 2, () => now);
    cache.set('a', 1);
    cache.set('b', 2);
    now = 999;
    expect(cache.get('a')).toBe(1);
    now = 1000;
    expect(cache.get('a')).toBeUndefined();
    cache.set('c', 3);
    cache.set('d', 4);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('c'), cache.get('d')]).toEqual([3, 4]);
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = new TtlCache<number>(0, 10);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('verifier', () => {
  const zone = {
    'acme.test': { mx: ['mx.acme.test'], a: ['192.0.2.1'] },
    'www-only.test': { mx: ['mx.www-only.test'] },
    'www.www-only.test': { aaaa: ['2001:db8::1'] },
    'web-only.test': { a: ['192.0.2.2'] },
    'null-mx.test': { mx: ['.'] },
    'mailinator.com': { mx: ['mx.mailinator.com'] },
  };

  it('a domain with MX and A is valid and has a website', async () => {
    const { resolver } = fakeResolver(zone);
    const r = await createVerifier({ resolver }).verify(' jane+news@acme.test ');
    expect(r).toEqual({
      email: 'jane+news@acme.test',
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
    });
  });

  it('finds a website on www. and refuses a domain without MX, or with a null MX', async () => {
    const v = createVerifier({ resolver: fakeResolver(zone).resolver });
    expect(await v.verify('a@www-only.test')).toMatchObject({ valid: true, hasWebsite: true });
    expect(await v.verify('a@web-only.test')).toMatchObject({
      valid: false,
      domainExists: true,
      hasMxRecords: false,
      reasons: [expect.stringMatching(/no MX/)],
    });
    expect(await v.verify('a@null-mx.test')).toMatchObject({ valid: false, domainExists: true, hasMxRecords: false });
    expect(await v.verify('a@nowhere.test')).toMatchObject({ valid: false, domainExists: false, reasons: [expect.stringMatching(/does not exist/)] });
  });

  it('a disposable domain is invalid even with MX records', async () => {
    const r = await createVerifier({ resolver: fakeResolver(zone).resolver }).verify('x@mailinator.com');
    expect(r).toMatchObject({ valid: false, isDisposable: true, hasMxRecords: true, reasons: ['Disposable email provider'] });
  });

  it('a malformed address is explained and never reaches DNS', async () => {
    const { resolver, asked } = fakeResolver(zone);
    const r = await createVerifier({ resolver }).verify('jane@@acme.test');
    expect(r.valid).toBe(false);
    expect(r.reasons.length).toBeGreaterThan(0);
    expect(asked).toEqual([]);
  });

  it('reports a failing lookup as a reason and asks again next time', async () => {
    const { resolver } = fakeResolver(zone);
    let fail = true;
    const flaky = {
      ...resolver,
      mx: async (name: string) => {
        if (fail) throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
        return resolver.mx(name);
      },
    } as Resolver;
    const v = createVerifier({ resolver: flaky });
    expect(await v.verify('a@acme.test')).toMatchObject({ valid: false, reasons: [expect.stringMatching(/ETIMEOUT/)] });
    fail = false;
    expect(await v.verify('a@acme.test')).toMatchObject({ valid: true });
  });

  it('asks DNS once per domain within the TTL, again after it', async () => {
    let now = 0;
    const { resolver, asked } = fakeResolver(zone);
    const v = createVerifier({ resolver, cacheTtlMs: 60_000, now: () => now });
    await Promise.all([v.verify('a@acme.test'), v.verify('b@acme.test')]);
    await v.verify('c@ACME.test');
    const once = asked.length;
    expect(asked.filter((q) => q === 'mx acme.test')).toHaveLength(1);
    now = 60_000;
    await v.verify('a@acme.test');
    expect(asked.length).toBe(once * 2);
  });
});
