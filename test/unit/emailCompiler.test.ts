import { compileCount, compileDocument, DocumentInvalid, toMjml } from '../../services/emailCompiler';
import { sanitizeRichText } from '../../lib/emailMarkup';
import { DEFAULT_BRAND } from '../../lib/brand';
import type { EmailDocument } from '../../lib/emailDocument';

const doc = (blocks: unknown[], settings: Record<string, unknown> = {}) => ({ version: 1, settings, blocks }) as EmailDocument;

describe('the block compiler', () => {
  it('compiles every block type to email HTML (tables, inlined styles) and a text part', async () => {
    const out = await compileDocument(
      doc([
        { id: 'h', type: 'heading', text: 'Welcome', level: 2 },
        { id: 't', type: 'text', html: '<p>Some <b>bold</b>, <i>italic</i> and <a href="https://example.com/a">a link</a></p><ul><li>one</li></ul>' },
        { id: 'b', type: 'button', text: 'Open', href: 'https://example.com/open' },
        { id: 'i', type: 'image', src: 'https://example.com/logo.png', alt: 'Our logo', width: 200 },
        { id: 'd', type: 'divider', thickness: 2 },
        { id: 's', type: 'spacer', height: 40 },
        { id: 'so', type: 'social', links: [{ network: 'github', href: 'https://github.com/x' }] },
        { id: 'r', type: 'html', html: '<table data-raw="1"><tr><td>raw cell</td></tr></table>' },
        { id: 'f', type: 'footer', text: 'You get this because you signed up.' },
      ]),
      { ...DEFAULT_BRAND, footer: { companyName: 'Acme Inc.', address: '1 Main St, Springfield' } },
    );
    expect(out.html).toMatch(/<table[^>]+role="presentation"/);
    expect(out.html).toContain('<h2 style="margin:0;font-size:22px;font-weight:700;">Welcome</h2>');
    expect(out.html).toContain('<strong>bold</strong>');
    expect(out.html).toContain('<em>italic</em>');
    expect(out.html).toContain('href="https://example.com/open"');
    expect(out.html).toMatch(/<img[^>]+alt="Our logo"[^>]+src="https:\/\/example.com\/logo.png"/);
    expect(out.html).toMatch(/border-top:solid 2px/);
    expect(out.html).toContain('height:40px');
    expect(out.html).toContain('href="https://github.com/x"');
    expect(out.html).toContain('<table data-raw="1"><tr><td>raw cell</td></tr></table>');
    expect(out.html).toContain('Acme Inc. · 1 Main St, Springfield');
    expect(out.html).toContain('href="{{ unsubscribeUrl }}"');
    expect(out.html).toContain('href="{{ manageUrl }}"');
    // Dark-mode aware, and the defaults avoid pure white on pure black.
    expect(out.html).toContain('<meta name="color-scheme" content="light dark"');
    expect(out.html).toContain('<meta name="supported-color-schemes" content="light dark"');
    expect(out.text).toContain('Welcome');
    expect(out.text).toContain('a link [https://example.com/a]');
    expect(out.text).toContain('Unsubscribe [{{ unsubscribeUrl }}]');
  });

  it.each([2, 3])('puts %i columns side by side on desktop and stacks them on a phone', async (n) => {
    const columns = Array.from({ length: n }, (_, i) => ({ blocks: [{ id: `c${i}`, type: 'text', html: `column ${i}` }] }));
    const out = await compileDocument(doc([{ id: 'c', type: 'columns', columns }]));
    const share = n === 2 ? '50' : '33-3333';
    expect(out.mjml.match(/<mj-column /g)).toHaveLength(n);
    // Each column is 100% wide by default and gets its share only from the desktop media query.
    expect(out.html).toMatch(new RegExp(`@media only screen and \\(min-width:480px\\)[^}]*\\.mj-column-per-${share} \\{ width:`));
    expect(out.html.match(new RegExp(`class="mj-column-per-${share} mj-outlook-group-fix"`, 'g'))).toHaveLength(n);
  });

  it('escapes settings and text: a heading cannot hold markup, a colour cannot inject an attribute', async () => {
    const out = await compileDocument(doc([{ id: 'h', type: 'heading', text: 'Hi <script>alert(1)</script> & "you"' }]));
    expect(out.html).toContain('Hi &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;you&quot;');
    expect(out.html).not.toContain('<script>');
    await expect(compileDocument(doc([{ id: 'h', type: 'heading', text: 'x', color: '#fff" onload="x' }]))).rejects.toThrow(DocumentInvalid);
    // Even a document that skipped validation cannot get it through: the compiler's own fence drops it.
    const mjml = toMjml(doc([{ id: 'h', type: 'heading', text: 'x', level: 1, color: '#fff" onload="x' }]));
    expect(mjml).not.toContain('onload');
  });

  it('sanitises a text block to the allowed subset', () => {
    expect(
      sanitizeRichText(
        '<p onclick="x">a<script>alert(1)</script><img src=x onerror=y><a href="javascript:alert(1)">b</a><a href="https://ok.example">c</a></p>',
      ),
    ).toBe('<p>a<a>b</a><a href="https://ok.example" target="_blank">c</a></p>');
    expect(sanitizeRichText('<div><strong>x</div>')).toBe('<strong>x</strong>');
    expect(sanitizeRichText('<ol><li>1<li>2</ol>')).toBe('<ol><li>1</li><li>2</li></ol>');
  });

  it('leaves Liquid intact in text, attributes and the text part', async () => {
    const out = await compileDocument(
      doc(
        [
          { id: 'h', type: 'heading', text: 'Hi {{ first name ?? "friend" }}' },
          { id: 't', type: 'text', html: '<p>{% if plan < 3 %}Upgrade{% endif %} <a href="https://x.example/{{ id }}">go</a></p>' },
          { id: 'b', type: 'button', text: 'Go', href: '{{ link ?? "https://a.example" }}' },
        ],
        { preheader: 'For {{ email }}' },
      ),
    );
    expect(out.html).toContain('Hi {{ first name ?? "friend" }}');
    expect(out.html).toContain('{% if plan < 3 %}Upgrade{% endif %}');
    expect(out.html).toContain('href="https://x.example/{{ id }}"');
    // A double quote inside Liquid would end the attribute: it becomes a single quote.
    expect(out.html).toContain(`href="{{ link ?? 'https://a.example' }}"`);
    expect(out.html).toContain('For {{ email }}');
    expect(out.text).toContain('{{ first name ?? "friend" }}');
    // The hidden preheader is not repeated in the text part.
    expect(out.text).not.toContain('For {{ email }}');
  });

  it('names the block and field of a document that does not validate', async () => {
    const bad = doc([
      { id: 'a', type: 'heading', text: 'ok' },
      { id: 'b', type: 'text', html: 'ok' },
      { id: 'c', type: 'spacer' },
      { id: 'd', type: 'image', src: 'ftp://nope', alt: '' },
    ]);
    const err = await compileDocument(bad).catch((e) => e);
    expect(err).toBeInstanceOf(DocumentInvalid);
    expect(err.problems.map((p: { path: string }) => p.path)).toEqual(['document.blocks.3.src']);
    const nested = await compileDocument(
      doc([{ id: 'c', type: 'columns', columns: [{ blocks: [] }, { blocks: [{ id: 'x', type: 'button', text: 'b', href: 'nope' }] }] }]),
    ).catch((e) => e);
    expect(nested.problems[0].path).toBe('document.blocks.0.columns.1.blocks.0.href');
  });

  it('falls back to the brand for unset settings, and a document setting wins', async () => {
    const brand = { ...DEFAULT_BRAND, colors: { ...DEFAULT_BRAND.colors, accent: '#ab12cd' } };
    const plain = await compileDocument(doc([{ id: 'b', type: 'button', text: 'Go', href: 'https://x.example' }]), brand);
    expect(plain.html).toContain('#ab12cd');
    const own = await compileDocument(doc([{ id: 'b', type: 'button', text: 'Go', href: 'https://x.example' }], { accentColor: '#00aa11' }), brand);
    expect(own.html).toContain('#00aa11');
    expect(own.html).not.toContain('#ab12cd');
  });

  it("drops MJML's indentation, but keeps a raw block's preformatted text as written", async () => {
    const plain = await compileDocument(doc([{ id: 'h', type: 'heading', text: 'Hi', level: 1 }]));
    expect(plain.html).not.toMatch(/\n[ \t]+</);
    const pre = await compileDocument(doc([{ id: 'r', type: 'html', html: '<pre>line one\n    indented line</pre>' }]));
    expect(pre.html).toContain('line one\n    indented line');
  });

  it('counts its MJML compiles', async () => {
    const before = compileCount();
    await compileDocument(doc([{ id: 's', type: 'spacer' }]));
    expect(compileCount()).toBe(before + 1);
  });
});
