import mjml2html from 'mjml';
import { STARTERS } from '../../lib/starters';
import { toMjml } from '../../services/emailCompiler';
import { EmailDocument } from '../../lib/emailDocument';
import { runChecks } from '../../lib/templateChecks';

describe('the starters', () => {
  it('are the six the editor offers', () => {
    expect(STARTERS.map((s) => s.id)).toEqual(['welcome', 'newsletter', 'product-update', 'receipt', 'password-reset', 'event-invitation']);
  });

  it.each(STARTERS.map((s) => [s.id, s] as const))('%s validates, compiles in strict mode with no warning and stays under 102 KB', async (_, s) => {
    const doc = EmailDocument.parse(s.document);
    const out = await mjml2html(toMjml(doc), { validationLevel: 'strict' });
    expect(out.errors).toEqual([]);
    expect(Buffer.byteLength(out.html)).toBeLessThan(102 * 1024);
    const problems = runChecks({ subject: s.subject, html: out.html, document: doc, type: 'MARKETING', knownVariables: [] }).filter(
      (c) => c.severity === 'error',
    );
    expect(problems).toEqual([]);
  });
});

describe('the checks', () => {
  const base = {
    subject: 'Hello',
    html: '<div style="display:none">pre</div><p>Hi</p><a href="{{ unsubscribeUrl }}">u</a>',
    type: 'MARKETING' as const,
    knownVariables: ['firstName'],
  };
  const rules = (over: Partial<Parameters<typeof runChecks>[0]>) => runChecks({ ...base, ...over }).map((c) => c.rule);
  it('pass a clean message', () => expect(rules({})).toEqual([]));
  it('unknown-variable, with a did-you-mean', () => {
    const [c] = runChecks({ ...base, subject: 'Hi {{ firstNam }}' });
    expect(c).toMatchObject({ rule: 'unknown-variable', message: expect.stringContaining('did you mean {{ firstName }}') });
    expect(rules({ subject: 'Hi {{ firstName }} {{ email }}' })).toEqual([]);
  });
  it('no-unsubscribe for marketing only', () => {
    expect(rules({ html: '<div style="display:none">p</div>' })).toEqual(['no-unsubscribe']);
    expect(rules({ html: '<div style="display:none">p</div>', type: 'TRANSACTIONAL' })).toEqual([]);
  });
  it('image-alt, link-missing, link-insecure in HTML', () => {
    expect(rules({ html: `${base.html}<img src="x">` })).toEqual(['image-alt']);
    expect(rules({ html: `${base.html}<a href="">x</a>` })).toEqual(['link-missing']);
    expect(rules({ html: `${base.html}<a href="http://a.example">x</a>` })).toEqual(['link-insecure']);
  });
  it('html-size, subject-empty, subject-long, no-preheader', () => {
    expect(rules({ html: base.html + 'x'.repeat(103 * 1024) })).toEqual(['html-size']);
    expect(rules({ subject: ' ' })).toEqual(['subject-empty']);
    expect(rules({ subject: 'x'.repeat(79) })).toEqual(['subject-long']);
    expect(rules({ html: '<a href="{{ unsubscribeUrl }}">u</a>' })).toEqual(['no-preheader']);
  });
});
