/**
 * Rewrites the links of a rendered HTML body for click tracking and adds the open pixel
 * (docs/tracking.md). Pure: the caller says which URLs stay as they are and how a tracked link and
 * the pixel are spelled.
 *
 * The body is scanned the way a browser tokenizes it, not with a regular expression: an `href` in a
 * comment, in a script or style, in an attribute value or in text is not a link, and rewriting it
 * would change what the reader sees. Only `<a>` and `<area>` start tags' first `href` (the one a
 * browser follows) with an http(s) URL is replaced. The URL stored is the one a browser would
 * follow (character references decoded, surrounding whitespace and inner tabs and line breaks
 * removed); a value whose character references we cannot decode for certain is left untracked
 * rather than risk redirecting somewhere its author did not mean.
 */

export interface TrackOptions {
  /** Replace links; their original URLs come back in `links`, in index order. */
  clicks: boolean;
  /** The pixel's URL, to add before `</body>` (or at the end); absent: no pixel. */
  pixelUrl?: string;
  /** The URL a link at `index` becomes. */
  clickUrl: (index: number) => string;
  /** URLs left exactly as they are (the subscription links). */
  keep: (url: string) => boolean;
  /** Links past this many stay as they are. */
  maxLinks?: number;
}

export interface Tracked {
  html: string;
  /** The original URL of each rewritten link; `clickUrl(i)` leads to `links[i]`. */
  links: string[];
}

// Elements whose content is text to the tokenizer: a `<a href>` inside them is not a tag.
const RAW_TEXT = ['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext'];
// Tokenizer whitespace, tested by char code: a regular expression per character cost more than the rest of the scan.
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
/**
 * Whether html[start, end) is the tag name `lower`, compared as the tokenizer does (ASCII letters
 * without case), by char code: a body has a tag every few dozen characters, and a lower-cased copy
 * of each name was most of what the scan allocated.
 */
function nameIs(html: string, start: number, end: number, lower: string): boolean {
  if (end - start !== lower.length) return false;
  // `| 32` lower-cases an ASCII letter and maps nothing else onto one.
  for (let k = 0; k < lower.length; k++) if ((html.charCodeAt(start + k) | 32) !== lower.charCodeAt(k)) return false;
  return true;
}
const SLASH = 47;
const GT = 62;
const EQ = 61;

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  sol: '/',
  colon: ':',
  quest: '?',
  equals: '=',
  num: '#',
  percnt: '%',
  plus: '+',
  period: '.',
  comma: ',',
  semi: ';',
  lowbar: '_',
  hyphen: '-',
};
// Names a browser decodes in an attribute even without their `;` (HTML's legacy references), unless followed by `=` or an alphanumeric.
const LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp']);

/** An attribute value as a browser reads it, or null when it holds a reference we cannot decode for certain. */
export function decodeAttribute(value: string): string | null {
  let out = '';
  let i = 0;
  while (i < value.length) {
    const amp = value.indexOf('&', i);
    if (amp < 0) return out + value.slice(i);
    out += value.slice(i, amp);
    const rest = value.slice(amp + 1);
    const numeric = /^#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));?/.exec(rest);
    if (numeric) {
      const code = numeric[1] !== undefined ? parseInt(numeric[1], 16) : parseInt(numeric[2], 10);
      // Zero, surrogates, past Unicode and C1 controls are remapped by browsers: not worth guessing.
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || (code >= 0x80 && code <= 0x9f)) return null;
      out += String.fromCodePoint(code);
      i = amp + 1 + numeric[0].length;
      continue;
    }
    const named = /^([A-Za-z][A-Za-z0-9]*)(;?)/.exec(rest);
    if (named) {
      const [all, name, semi] = named;
      if (semi && Object.hasOwn(NAMED, name)) {
        out += NAMED[name];
        i = amp + 1 + all.length;
        continue;
      }
      if (semi) return null; // a reference of HTML's long list: the browser decodes it, we do not know to what
      const legacy = [...LEGACY].find((l) => name.startsWith(l));
      if (legacy) {
        const after = rest[legacy.length];
        if (after === undefined || !/[=A-Za-z0-9]/.test(after)) {
          out += NAMED[legacy];
          i = amp + 1 + legacy.length;
          continue;
        }
      }
      // `&utm_source=…`: not a reference, the ampersand is literal.
    }
    out += '&';
    i = amp + 1;
  }
  return out;
}

/** What a browser would navigate to for this href, when it is an http(s) URL. */
function linkTarget(raw: string): string | null {
  const decoded = decodeAttribute(raw);
  if (decoded === null) return null;
  // The URL parser strips leading and trailing C0 controls and spaces, and drops tabs and line breaks anywhere.
  const url = decoded.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');
  return /^https?:\/\//i.test(url) ? url : null;
}

/**
 * A copy of `s` that keeps nothing else alive. In V8 a slice of a longer string is a view into it,
 * so a link cut from the rendered body kept the whole body alive for as long as the email's links
 * were: a campaign batch holds a thousand emails until they are handed over, and each held its
 * untracked body (2 KB) beside the tracked one. Joining a character on and cutting it off makes V8
 * copy the characters.
 */
const detached = (s: string) => ` ${s}`.slice(1);

// A tracking URL is base64url under a configured base: it seldom has anything to escape.
const escapeAttribute = (s: string) => (s.includes('&') || s.includes('"') ? s.replace(/&/g, '&amp;').replace(/"/g, '&quot;') : s);

interface Attribute {
  name: string;
  /** The raw value (quotes excluded, references not decoded); `spanStart`–`spanEnd` is its source span, quotes included. */
  value: string;
  spanStart: number;
  spanEnd: number;
}

/**
 * Reads a start tag's attributes from `i` (just after the name); returns them and the index after
 * `>`, or `closed: false` when the input ends first (a browser drops such a tag). Without
 * `collect`, only finds where the tag ends (the attributes of a tag that is no link are not needed).
 */
function readAttributes(html: string, i: number, collect = true): { attributes: Attribute[]; end: number; closed: boolean } {
  const attributes: Attribute[] = [];
  const n = html.length;
  while (i < n) {
    while (i < n && (isSpace(html.charCodeAt(i)) || html.charCodeAt(i) === SLASH)) i++;
    if (i >= n) break;
    if (html.charCodeAt(i) === GT) return { attributes, end: i + 1, closed: true };
    const nameStart = i;
    // A name may begin with `=` (the tokenizer takes it as part of the name).
    i++;
    for (let c = html.charCodeAt(i); i < n && !isSpace(c) && c !== SLASH && c !== GT && c !== EQ; c = html.charCodeAt(++i));
    const name = collect ? html.slice(nameStart, i).toLowerCase() : '';
    let j = i;
    while (j < n && isSpace(html.charCodeAt(j))) j++;
    if (html.charCodeAt(j) !== EQ) {
      if (collect) attributes.push({ name, value: '', spanStart: i, spanEnd: i });
      continue;
    }
    j++;
    while (j < n && isSpace(html.charCodeAt(j))) j++;
    const quote = html[j];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, j + 1);
      const valueEnd = close < 0 ? n : close;
      if (collect) attributes.push({ name, value: html.slice(j + 1, valueEnd), spanStart: j, spanEnd: close < 0 ? n : close + 1 });
      i = close < 0 ? n : close + 1;
    } else {
      const start = j;
      for (let c = html.charCodeAt(j); j < n && !isSpace(c) && c !== GT; c = html.charCodeAt(++j));
      if (collect) attributes.push({ name, value: html.slice(start, j), spanStart: start, spanEnd: j });
      i = j;
    }
  }
  return { attributes, end: n, closed: false };
}

/** Rewrites `html`'s links and adds the pixel as `options` say. */
export function trackHtml(html: string, options: TrackOptions): Tracked {
  const maxLinks = options.maxLinks ?? Number.POSITIVE_INFINITY;
  const links: string[] = [];
  const edits: Array<{ start: number; end: number; text: string }> = [];
  let bodyClose = -1;
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0 || lt + 1 >= n) break;
    const next = html[lt + 1];
    if (html.startsWith('<!--', lt)) {
      const close = html.indexOf('-->', lt + 4);
      i = close < 0 ? n : close + 3;
    } else if (next === '!' || next === '?') {
      // A doctype, CDATA or bogus comment: up to the next `>`.
      const close = html.indexOf('>', lt + 2);
      i = close < 0 ? n : close + 1;
    } else if (next === '/') {
      const after = html.charCodeAt(lt + 6);
      if (nameIs(html, lt + 2, Math.min(lt + 6, n), 'body') && (Number.isNaN(after) || isSpace(after) || after === SLASH || after === GT)) bodyClose = lt;
      const close = html.indexOf('>', lt + 2);
      i = close < 0 ? n : close + 1;
    } else if (isLetter(next.charCodeAt(0))) {
      let j = lt + 1;
      for (let c = html.charCodeAt(j); j < n && !isSpace(c) && c !== SLASH && c !== GT; c = html.charCodeAt(++j));
      const isLink = options.clicks && links.length < maxLinks && (nameIs(html, lt + 1, j, 'a') || nameIs(html, lt + 1, j, 'area'));
      const { attributes, end, closed } = readAttributes(html, j, isLink);
      i = end;
      if (closed && isLink) {
        // The first href is the one a browser follows; later duplicates are ignored by it and by us.
        const href = attributes.find((a) => a.name === 'href');
        const url = href ? linkTarget(href.value) : null;
        if (href && url && !options.keep(url)) {
          edits.push({ start: href.spanStart, end: href.spanEnd, text: `"${escapeAttribute(options.clickUrl(links.length))}"` });
          links.push(detached(url));
        }
      }
      const raw = RAW_TEXT.find((name) => nameIs(html, lt + 1, j, name));
      if (raw) {
        if (raw === 'plaintext') break;
        // Everything up to the matching end tag is text.
        const close = html.slice(i).search(new RegExp(`</${raw}[\\t\\n\\f\\r />]`, 'i'));
        i = close < 0 ? n : i + close;
      }
    } else {
      i = lt + 1;
    }
  }
  if (options.pixelUrl) {
    const pixel = `<img src="${escapeAttribute(options.pixelUrl)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0">`;
    edits.push(bodyClose >= 0 ? { start: bodyClose, end: bodyClose, text: pixel } : { start: n, end: n, text: pixel });
  }
  edits.sort((a, b) => a.start - b.start);
  // Joined, not concatenated: `+=` of slices keeps a tree of views into the rendered body, which
  // then stays alive beside the result until something flattens it. A campaign batch holds a
  // thousand bodies until they are handed over, and the garbage collector copied both.
  const parts: string[] = [];
  let copied = 0;
  for (const e of edits) {
    parts.push(html.slice(copied, e.start), e.text);
    copied = e.end;
  }
  parts.push(html.slice(copied));
  return { html: parts.join(''), links };
}
