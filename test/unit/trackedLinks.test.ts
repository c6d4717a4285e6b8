import { decodeAttribute, trackHtml } from '../../services/trackedLinks';
import { trackedBody } from '../../services/emailTracking';
import { verifyTrackingToken } from '../../services/trackingTokens';

const clicks = (html: string, keep: (url: string) => boolean = () => false) =>
  trackHtml(html, { clicks: true, clickUrl: (i) => `https://t.test/t/c/${i}`, keep });

describe('link rewriting', () => {
  it('rewrites http(s) hrefs of <a> and <area>, in order, whatever the quoting and case', () => {
    const r = clicks(
      `<p><a href="https://a.test/1">one</a> <A HREF='http://b.test/2?x=1'>two</A> <a class=x href=https://c.test/3>three</a><map><area href="https://d.test/4"></map></p>`,
    );
    expect(r.links).toEqual(['https://a.test/1', 'http://b.test/2?x=1', 'https://c.test/3', 'https://d.test/4']);
    expect(r.html).toBe(
      `<p><a href="https://t.test/t/c/0">one</a> <A HREF="https://t.test/t/c/1">two</A> <a class=x href="https://t.test/t/c/2">three</a><map><area href="https://t.test/t/c/3"></map></p>`,
    );
  });

  it('stores the URL a browser follows: references decoded, whitespace stripped', () => {
    const r = clicks(`<a href=" https://a.test/?a=1&amp;b=2&#38;c=%20&#x3D;&utm_source=x\n">x</a>`);
    expect(r.links).toEqual(['https://a.test/?a=1&b=2&c=%20=&utm_source=x']);
  });

  it('leaves non-http links, the kept links and links with undecodable references alone', () => {
    const html = `<a href="mailto:a@b.test">m</a><a href="tel:1">t</a><a href="#top">#</a><a href="javascript:alert(1)">j</a><a href="/relative">r</a>
<a href="https://app.test/unsubscribe/tok">u</a><a href="https://a.test/&copy;">c</a><a name="x">no href</a>`;
    const r = clicks(html, (url) => url.startsWith('https://app.test/unsubscribe/'));
    expect(r.links).toEqual([]);
    expect(r.html).toBe(html);
  });

  it('ignores what only looks like a link: comments, scripts, styles, text, other attributes, other tags', () => {
    const html = `<!-- <a href="https://c.test/comment"> --><script>var s = '<a href="https://s.test/">';</script><style>a[href="https://st.test/"]{}</style>
<textarea><a href="https://ta.test/"></textarea><p title='<a href="https://attr.test/">'>text href="https://text.test/"</p><link href="https://link.test/style.css"><img src="https://img.test/x.png">
<a data-href="https://data.test/" href="https://real.test/">real</a>`;
    const r = clicks(html);
    expect(r.links).toEqual(['https://real.test/']);
    expect(r.html).toBe(html.replace('href="https://real.test/"', 'href="https://t.test/t/c/0"'));
  });

  it('follows the first href only, as browsers do, and survives broken markup', () => {
    expect(clicks(`<a href="https://first.test/" href="https://second.test/">x</a>`).links).toEqual(['https://first.test/']);
    // Unterminated tag, comment and quote: nothing thrown, nothing invented.
    for (const broken of ['<a href="https://x.test/', '<!-- <a href="https://x.test/">', '<a href=', '<', '<a', '<script><a href="https://x.test/">']) {
      expect(() => clicks(broken)).not.toThrow();
    }
    expect(clicks('<a href="https://x.test/').links).toEqual([]);
    expect(clicks('<!-- <a href="https://x.test/">').links).toEqual([]);
  });

  it('escapes the replacement and cannot be made to break out of the attribute', () => {
    const r = trackHtml(`<a href="https://a.test/">x</a>`, { clicks: true, clickUrl: () => 'https://t.test/"><script>', keep: () => false });
    expect(r.html).toBe(`<a href="https://t.test/&quot;><script>">x</a>`);
  });

  it('adds the pixel before </body>, or at the end', () => {
    const pixel = { clicks: false, pixelUrl: 'https://t.test/t/o/p', clickUrl: () => '', keep: () => false };
    expect(trackHtml('<html><body><p>x</p></BODY></html>', pixel).html).toMatch(
      /<p>x<\/p><img src="https:\/\/t\.test\/t\/o\/p" width="1" height="1" alt=""[^>]*><\/BODY><\/html>$/,
    );
    expect(trackHtml('<p>x</p>', pixel).html).toMatch(/^<p>x<\/p><img src="https:\/\/t\.test\/t\/o\/p"/);
    // A `</body>` inside a comment is not the body's end.
    expect(trackHtml('<p>x</p><!-- </body> -->', pixel).html).toMatch(/<!-- <\/body> --><img /);
    expect(trackHtml('<a href="https://a.test/">x</a>', pixel).links).toEqual([]);
  });

  it('decodes attribute references like a browser, or gives up', () => {
    expect(decodeAttribute('a&amp;b&lt;&gt;&quot;&#39;&#x41;')).toBe(`a&b<>"'A`);
    expect(decodeAttribute('?x=1&ampy')).toBe('?x=1&ampy'); // legacy reference followed by a letter: literal
    expect(decodeAttribute('?x=1&amp=2')).toBe('?x=1&amp=2'); // followed by `=`: literal
    expect(decodeAttribute('&amp/')).toBe('&/');
    expect(decodeAttribute('&hellip;')).toBeNull();
    expect(decodeAttribute('&#0;')).toBeNull();
  });
});

describe('a tracked body', () => {
  const config = { appUrl: 'https://app.test', trackingUrl: 'https://t.test', jwtSecret: 'a-test-secret-of-enough-length' };
  const EMAIL = '0b9f6c3e-1d2a-4c5b-8e7f-9a0b1c2d3e4f';
  const html = `<body><a href="https://shop.test/a">a</a><a href="https://app.test/unsubscribe/x.y">u</a><a href="https://app.test/subscribe/x.y">s</a><a href="https://app.test/manage/x.y">m</a></body>`;

  it('signs click tokens naming the email and the link, keeps the subscription links and adds the pixel', () => {
    const t = trackedBody(config, EMAIL, html, { opens: true, clicks: true });
    expect(t.links).toEqual(['https://shop.test/a']);
    const [token] = /https:\/\/t\.test\/t\/c\/([\w.-]+)/.exec(t.body)!.slice(1);
    expect(verifyTrackingToken(config.jwtSecret, 'click', token)).toEqual({ kind: 'click', emailId: EMAIL, link: 0 });
    for (const kept of ['unsubscribe', 'subscribe', 'manage']) expect(t.body).toContain(`href="https://app.test/${kept}/x.y"`);
    const [pixel] = /https:\/\/t\.test\/t\/o\/([\w.-]+)/.exec(t.body)!.slice(1);
    expect(verifyTrackingToken(config.jwtSecret, 'open', pixel)).toEqual({ kind: 'open', emailId: EMAIL });
  });

  it('does nothing with tracking off, and only what is on otherwise', () => {
    expect(trackedBody(config, EMAIL, html, { opens: false, clicks: false })).toEqual({ body: html, trackOpens: false, trackClicks: false, links: null });
    const opensOnly = trackedBody(config, EMAIL, html, { opens: true, clicks: false });
    expect(opensOnly.links).toBeNull();
    expect(opensOnly.body).toContain('href="https://shop.test/a"');
    expect(opensOnly.body).toContain('/t/o/');
    const clicksOnly = trackedBody(config, EMAIL, html, { opens: false, clicks: true });
    expect(clicksOnly.body).not.toContain('/t/o/');
  });
});
