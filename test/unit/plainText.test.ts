import { htmlToPlainText } from '../../services/plainText';
import { renderTemplate, RenderBudgetExceeded, RenderError } from '../../services/render';

describe('htmlToPlainText (the generated text/plain part)', () => {
  it('keeps links as text [url], and a link whose text is its url once', () => {
    expect(htmlToPlainText('<p>Read <a href="https://e.example/a?x=1&amp;y=2">the news</a>.</p>')).toBe('Read the news [https://e.example/a?x=1&y=2].');
    expect(htmlToPlainText('<p><a href="https://e.example/">https://e.example/</a></p>')).toBe('https://e.example/');
  });

  it('drops in-page anchors, keeping their text', () => {
    expect(htmlToPlainText('<p><a href="#top">Back to top</a></p>')).toBe('Back to top');
  });

  it('writes an image as its alt text, and an image without one (a tracking pixel) as nothing', () => {
    expect(htmlToPlainText('<p>A<img src="https://t.example/p.gif" width="1" height="1">B</p>')).toBe('AB');
    expect(htmlToPlainText('<p><img src="logo.png" alt="Acme logo"></p>')).toBe('Acme logo');
  });

  it('wraps lines at 78 characters without splitting a long url', () => {
    const words = 'lorem '.repeat(40).trim();
    const lines = htmlToPlainText(`<p>${words}</p>`).split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(78);
    const url = `https://e.example/${'x'.repeat(120)}`;
    expect(htmlToPlainText(`<p><a href="${url}">Unsubscribe</a></p>`)).toContain(`[${url}]`);
  });

  it('drops head, style and script; headings keep their case; paragraphs are separated by a blank line', () => {
    const html =
      '<html><head><title>T</title><style>p{color:red}</style></head><body><h1>Hello Ada</h1><p>One</p><p>Two</p><script>alert(1)</script></body></html>';
    expect(htmlToPlainText(html)).toBe('Hello Ada\n\nOne\n\nTwo');
  });

  it('lays out table cells as text (email layouts are tables)', () => {
    const text = htmlToPlainText('<table><tr><td><p>Left</p></td><td><p>Right</p></td></tr></table>');
    expect(text).toContain('Left');
    expect(text).toContain('Right');
    expect(text).not.toMatch(/[<>]/);
  });

  it('decodes entities', () => {
    expect(htmlToPlainText('<p>Tom &amp; Jerry &lt;3 &eacute;t&eacute;</p>')).toBe('Tom & Jerry <3 été');
  });
});

describe('renderTemplate text part', () => {
  it('generates it from the rendered body when the template has no text', async () => {
    const out = await renderTemplate(
      { subject: 's', body: '<p>Hi {{name}}, <a href="{{url}}">unsubscribe</a></p>' },
      { name: 'Ada', url: 'https://u.example/x' },
    );
    expect(out.text).toBe('Hi Ada, unsubscribe [https://u.example/x]');
  });

  it("renders the template's own text with the variables, without HTML escaping", async () => {
    const out = await renderTemplate({ subject: 's', body: '<p>{{name}}</p>', text: 'Hi {{name}} {{ missing ?? "there" }}' }, { name: 'A & B' });
    expect(out.body).toBe('<p>A &amp; B</p>');
    expect(out.text).toBe('Hi A & B there');
  });

  it('names the text part in a parse error', async () => {
    await expect(renderTemplate({ subject: 's', body: 'b', text: '{{ oops' }, {})).rejects.toThrow(RenderError);
    await expect(renderTemplate({ subject: 's', body: 'b', text: '{{ oops' }, {})).rejects.toThrow(/^text: /);
  });

  it('renders the text part within the render budget', async () => {
    await expect(
      renderTemplate({ subject: 's', body: 'b', text: '{% for i in (1..1000000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}' }, {}, { budgetMs: 20 }),
    ).rejects.toThrow(RenderBudgetExceeded);
  });
});
