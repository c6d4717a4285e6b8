import { applyCheck, buildRecords, DnsRecord, DomainRow, parseDomain, recordFound, problemIn, recordProblem, senderDomainCandidates } from '../../db/domains';
import { spfMechanism } from '../../lib/config';
import { DomainCreate } from '../../api/schemas/domains';

const SPF = 'include:sendgrid.net';

describe('domain names', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Mail.Example.COM. ', 'mail.example.com'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['a-b.co.uk', 'a-b.co.uk'],
  ])('accepts %p as %p', (input, domain) => {
    expect(parseDomain(input)).toEqual({ domain });
  });

  it.each([
    'localhost',
    'https://example.com',
    'example.com/path',
    'example.com:25',
    'user@example.com',
    'exa mple.com',
    '192.168.1.10',
    '[::1]',
    '2001:db8::1',
    '-bad.example.com',
    'bad-.example.com',
    'under_score.example.com',
    'a..b.com',
    '.example.com',
    'example.123',
    `${'a'.repeat(64)}.com`,
    `${'a.'.repeat(120)}com`,
    '',
  ])('rejects %p', (input) => {
    expect(parseDomain(input)).toHaveProperty('error');
  });

  it('normalizes through the request schema and reports a custom field error', () => {
    expect(DomainCreate.parse({ domain: 'Example.COM' })).toEqual({ domain: 'example.com' });
    const bad = DomainCreate.safeParse({ domain: 'http://example.com' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]).toMatchObject({ path: ['domain'], code: 'custom' });
  });
});

describe('records', () => {
  it('asks for ownership, SPF and (recommended) DMARC records, none valid yet', () => {
    expect(buildRecords('example.com', 'tok123', 'include:spf.provider.test')).toEqual([
      { type: 'TXT', name: '_svc-verification.example.com', value: 'svc-verification=tok123', purpose: 'ownership', required: true, valid: false },
      { type: 'TXT', name: 'example.com', value: 'v=spf1 include:spf.provider.test ~all', purpose: 'spf', required: true, valid: false },
      { type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none;', purpose: 'dmarc', required: false, valid: false },
    ]);
  });

  it('recommends the inbound server as MX of inbound.<domain>, and of bounces.<domain> when our return paths use it', () => {
    const mx = (bounces: boolean) => buildRecords('example.com', 'tok', SPF, null, { mxHost: 'mx.svc.test', bounces }).filter((r) => r.type === 'MX');
    expect(mx(false)).toEqual([{ type: 'MX', name: 'inbound.example.com', value: '10 mx.svc.test', purpose: 'inbound', required: false, valid: false }]);
    expect(mx(true).map((r) => [r.name, r.purpose, r.required])).toEqual([
      ['inbound.example.com', 'inbound', false],
      ['bounces.example.com', 'bounce', false],
    ]);
    const [inbound] = mx(false);
    expect(recordFound(inbound, ['MX.svc.test.'], SPF)).toBe(true);
    expect(recordFound(inbound, ['mx.other.test', 'svc.test'], SPF)).toBe(false);
    expect(recordFound(inbound, [], SPF)).toBe(false);
  });

  const [ownership, spf, dmarc] = buildRecords('example.com', 'tok123', SPF);

  it('matches the ownership value exactly', () => {
    expect(recordFound(ownership, ['other', 'svc-verification=tok123'], SPF)).toBe(true);
    expect(recordFound(ownership, ['svc-verification=tok1234'], SPF)).toBe(false);
    expect(recordFound(ownership, ['svc-verification=other'], SPF)).toBe(false);
    expect(recordFound(ownership, [], SPF)).toBe(false);
  });

  it('accepts an SPF record that includes the provider among other mechanisms', () => {
    expect(recordFound(spf, ['google-site-verification=x', 'v=spf1 ip4:1.2.3.4 include:sendgrid.net -all'], SPF)).toBe(true);
    expect(recordFound(spf, ['V=SPF1 +include:SendGrid.net ~all'], SPF)).toBe(true);
  });

  it('rejects SPF without the provider, a look-alike include, or two SPF records', () => {
    expect(recordFound(spf, ['v=spf1 include:_spf.google.com ~all'], SPF)).toBe(false);
    expect(recordFound(spf, ['v=spf1 include:sendgrid.net.evil.test ~all'], SPF)).toBe(false);
    expect(recordFound(spf, ['include:sendgrid.net'], SPF)).toBe(false);
    expect(recordFound(spf, ['v=spf1 include:sendgrid.net ~all', 'v=spf1 include:other.test ~all'], SPF)).toBe(false);
  });

  it('accepts any DMARC policy record', () => {
    expect(recordFound(dmarc, ['v=DMARC1; p=reject; rua=mailto:d@example.com'], SPF)).toBe(true);
    expect(recordFound(dmarc, ['v=DMARC1'], SPF)).toBe(true);
    expect(recordFound(dmarc, ['v=DMARC10; p=none'], SPF)).toBe(false);
    expect(recordFound(dmarc, ['p=none'], SPF)).toBe(false);
  });
});

describe('status after a check', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const row = (status: DomainRow['status'], verifiedAt: Date | null = null): DomainRow => ({
    id: 'id',
    project_id: 'p',
    domain: 'example.com',
    token: 'tok',
    status,
    records: buildRecords('example.com', 'tok', SPF),
    last_checked_at: null,
    verified_at: verifiedAt,
    created_at: now,
  });
  const withValid = (valid: Record<string, boolean>): DnsRecord[] =>
    buildRecords('example.com', 'tok', SPF).map((r) => ({ ...r, valid: valid[r.purpose] ?? false }));

  it('verifies when every required record is valid, even without the recommended DMARC', () => {
    const patch = applyCheck(row('PENDING'), withValid({ ownership: true, spf: true }), now);
    expect(patch).toMatchObject({ status: 'VERIFIED', verified_at: now, last_checked_at: now });
    expect(patch.records.map((r) => r.valid)).toEqual([true, true, false]);
  });

  it('stays pending while a required record is missing, whatever the recommended one says', () => {
    expect(applyCheck(row('PENDING'), withValid({ ownership: true, dmarc: true }), now)).toMatchObject({ status: 'PENDING', verified_at: null });
    expect(applyCheck(row('PENDING'), withValid({ spf: true, dmarc: true }), now)).toMatchObject({ status: 'PENDING', verified_at: null });
  });

  it('never un-verifies a verified domain and keeps its first verification time', () => {
    const earlier = new Date('2029-01-01T00:00:00Z');
    const patch = applyCheck(row('VERIFIED', earlier), withValid({}), now);
    expect(patch).toMatchObject({ status: 'VERIFIED', verified_at: earlier, last_checked_at: now });
    expect(patch.records.every((r) => !r.valid)).toBe(true);
  });
});

describe('sender addresses', () => {
  it('looks up the domain of the address and each parent, never the bare TLD', () => {
    expect(senderDomainCandidates('News@Mail.Example.COM')).toEqual(['mail.example.com', 'example.com']);
    expect(senderDomainCandidates('a@example.com')).toEqual(['example.com']);
  });

  it('does not treat a look-alike suffix as a subdomain', () => {
    expect(senderDomainCandidates('a@notexample.com')).not.toContain('example.com');
    expect(senderDomainCandidates('a@example.com.evil.test')).not.toContain('example.com');
  });

  it('has no candidates for addresses without a usable domain', () => {
    expect(senderDomainCandidates('no-at-sign')).toEqual([]);
    expect(senderDomainCandidates('@example.com')).toEqual([]);
    expect(senderDomainCandidates('a@localhost')).toEqual([]);
    expect(senderDomainCandidates('a@1.2.3.4')).toEqual([]);
  });
});

describe('the SPF term of the configured transport', () => {
  it('is the provider include for SendGrid and SES, the relay host under SMTP, and SPF_INCLUDE when set', () => {
    expect(spfMechanism(undefined, 'sendgrid', undefined)).toBe('include:sendgrid.net');
    expect(spfMechanism(undefined, 'ses', undefined)).toBe('include:amazonses.com');
    // Under SMTP no SendGrid include: the relay sends, named by its host or address.
    expect(spfMechanism(undefined, 'smtp', 'smtp://user:pw@relay.example.net:587')).toBe('a:relay.example.net');
    expect(spfMechanism(undefined, 'smtp', 'smtps://203.0.113.7:465')).toBe('ip4:203.0.113.7');
    expect(spfMechanism(undefined, 'smtp', 'smtp://[2001:db8::25]:25')).toBe('ip6:2001:db8::25');
    expect(spfMechanism('spf.relay.test', 'smtp', 'smtp://relay.example.net')).toBe('include:spf.relay.test');
    const [, spf] = buildRecords('example.com', 'tok', spfMechanism(undefined, 'smtp', 'smtp://relay.example.net'));
    expect(spf.value).toBe('v=spf1 a:relay.example.net ~all');
    expect(recordFound(spf, ['v=spf1 a:relay.example.net include:_spf.google.com -all'], 'a:relay.example.net')).toBe(true);
    expect(recordFound(spf, ['v=spf1 include:sendgrid.net ~all'], 'a:relay.example.net')).toBe(false);
  });
});

describe('what is wrong with a record, in a sentence', () => {
  const [ownership, spf, dmarc] = buildRecords('example.com', 'tok123', SPF);
  const [dkim, inbound] = buildRecords('example.com', 'tok', SPF, { selector: 's1', publicKey: 'AAAA' }, { mxHost: 'mx.svc.test', bounces: false }).slice(3);
  it('names what was found instead of the record', () => {
    expect(recordProblem(ownership, [], SPF)).toBe(
      'No TXT record was found at _svc-verification.example.com: publish the value shown (DNS changes can take a while to be seen).',
    );
    expect(recordProblem(ownership, ['svc-verification=other'], SPF)).toMatch(/do not hold this project's verification value/);
    expect(recordProblem(spf, ['google-site-verification=x'], SPF)).toBe('There is no SPF record (v=spf1 …) at example.com: publish the value shown.');
    expect(recordProblem(spf, ['v=spf1 include:a.test ~all', 'v=spf1 include:b.test ~all'], SPF)).toMatch(
      /has 2 SPF records.*merge them into one that carries include:sendgrid\.net/,
    );
    expect(recordProblem(spf, ['v=spf1 include:_spf.google.com ~all'], SPF)).toBe(
      'The SPF record at example.com ("v=spf1 include:_spf.google.com ~all") does not carry include:sendgrid.net: add it before the final all term, as in the value shown.',
    );
    expect(recordProblem(dmarc, ['p=none'], SPF)).toMatch(/no DMARC policy/);
    expect(recordProblem(dkim, ['v=DKIM1; k=rsa; p=BBBB'], SPF)).toMatch(/does not hold this domain's DKIM key/);
    expect(recordProblem(inbound, ['mx.other.test'], SPF)).toMatch(/points to mx\.other\.test, not to mx\.svc\.test/);
  });
});

describe('what is wrong with a record, in French and German', () => {
  const [ownership, spf, dmarc] = buildRecords('example.com', 'tok123', SPF);
  const [dkim, inbound] = buildRecords('example.com', 'tok', SPF, { selector: 's1', publicKey: 'AAAA' }, { mxHost: 'mx.svc.test', bounces: false }).slice(3);
  const twoSpf = ['v=spf1 include:a.test ~all', 'v=spf1 include:b.test ~all'];

  it('says each problem in the reader’s language, the DNS values as found', () => {
    expect(recordProblem(ownership, [], SPF, 'fr')).toBe(
      'Aucun enregistrement TXT n’a été trouvé sur _svc-verification.example.com : publiez la valeur indiquée (une modification DNS peut mettre un moment à être visible).',
    );
    expect(recordProblem(ownership, [], SPF, 'de')).toBe(
      'Unter _svc-verification.example.com wurde kein TXT-Eintrag gefunden: Veröffentlichen Sie den angezeigten Wert (DNS-Änderungen können eine Weile brauchen, bis sie sichtbar sind).',
    );
    expect(recordProblem(spf, twoSpf, SPF, 'fr')).toBe(
      'example.com a 2 enregistrements SPF, ce que les destinataires traitent comme une erreur : fusionnez-les en un seul qui contient include:sendgrid.net.',
    );
    expect(recordProblem(spf, twoSpf, SPF, 'de')).toBe(
      'example.com hat 2 SPF-Einträge, was Empfänger als Fehler werten: Führen Sie sie zu einem zusammen, der include:sendgrid.net enthält.',
    );
    expect(recordProblem(spf, ['v=spf1 include:_spf.google.com ~all'], SPF, 'fr')).toBe(
      'L’enregistrement SPF de example.com (« v=spf1 include:_spf.google.com ~all ») ne contient pas include:sendgrid.net : ajoutez-le avant le terme all final, comme dans la valeur indiquée.',
    );
    expect(recordProblem(inbound, ['mx.other.test', 'mx2.other.test'], SPF, 'de')).toBe(
      'Der MX-Eintrag unter inbound.example.com zeigt auf mx.other.test, mx2.other.test, nicht auf mx.svc.test: Dorthin gesendete E-Mails erreichen diesen Dienst nicht.',
    );
  });

  it('has words for every kind of problem in every language', () => {
    const cases: [DnsRecord, string[]][] = [
      [ownership, []],
      [ownership, ['svc-verification=other']],
      [spf, ['google-site-verification=x']],
      [spf, twoSpf],
      [spf, ['v=spf1 include:_spf.google.com ~all']],
      [dmarc, ['p=none']],
      [dkim, ['v=DKIM1; k=rsa; p=BBBB']],
      [inbound, ['mx.other.test']],
    ];
    for (const [record, found] of cases) {
      const english = recordProblem(record, found, SPF);
      for (const lang of ['fr', 'de'] as const) {
        const said = recordProblem(record, found, SPF, lang);
        expect(said).not.toBe(english);
        // No English word of the sentence survives; the record's name does.
        expect(said).not.toMatch(/\b(the|publish|record|does|found)\b/);
        expect(said).toContain(record.name);
      }
    }
  });

  it('composes a stored problem again in the reader’s language from what its check found', () => {
    const checked: DnsRecord = { ...spf, problem: recordProblem(spf, twoSpf, SPF), found: twoSpf };
    expect(problemIn(checked, 'en')).toBe(checked.problem);
    expect(problemIn(checked, 'de')).toBe(recordProblem(spf, twoSpf, SPF, 'de'));
    // A check stored before `found` was kept: its English sentence, rather than none.
    expect(problemIn({ ...checked, found: undefined }, 'fr')).toBe(checked.problem);
    expect(problemIn({ ...spf, valid: true, problem: null }, 'fr')).toBeNull();
  });
});
