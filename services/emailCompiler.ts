import mjml2html from 'mjml';
import type { z } from 'zod';
import { type Block, EmailDocument, type LeafBlock } from '../lib/emailDocument';
import { type Brand, DEFAULT_BRAND } from '../lib/brand';
import { escapeAttr, escapeText, liquidPieces, safeHref, sanitizeRichText } from '../lib/emailMarkup';
import { htmlToPlainText } from './plainText';

/**
 * A block document (lib/emailDocument.ts) and the project's brand → MJML → email HTML and its text
 * part. Run once per saved or published version (the result is stored, and Liquid renders the stored
 * HTML per recipient like any HTML template), never per recipient: `compileCount` counts the MJML
 * compiles so the bench and the tests can hold that.
 */

let compiles = 0;
/** MJML compiles since the process started (bench/editor.ts, tests). */
export const compileCount = () => compiles;

export interface Compiled {
  html: string;
  text: string;
  mjml: string;
}

/** A document that does not validate: each problem names its place, `document.blocks.3.src`. */
export class DocumentInvalid extends Error {
  override name = 'DocumentInvalid';
  constructor(readonly problems: Array<{ path: string; message: string }>) {
    super(problems.map((p) => `${p.path}: ${p.message}`).join('; '));
  }
}

/** zod issues of a document, as paths under `prefix` (`document`, `variants.fr.document`). */
export function documentProblems(error: z.ZodError, prefix = 'document'): Array<{ path: string; message: string }> {
  return error.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].join('.'), message: i.message }));
}

/** Validates unknown input as a document; throws DocumentInvalid naming the block and field. */
export function parseDocument(input: unknown, prefix = 'document'): EmailDocument {
  const r = EmailDocument.safeParse(input);
  if (!r.success) throw new DocumentInvalid(documentProblems(r.error, prefix));
  return r.data;
}

const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/**
 * A colour safe to write into an attribute (the schema already holds them to hex; this is the
 * second fence). Pure black and pure white are nudged off the extremes: clients that invert colours
 * in dark mode turn a pure pair glaring, and a near-black/near-white survives it better.
 */
function colour(value: string | undefined, fallback: string): string {
  const c = value && HEX.test(value) ? value.toLowerCase() : fallback;
  if (c === '#000' || c === '#000000') return '#111111';
  if (c === '#fff' || c === '#ffffff') return '#fefefe';
  return c;
}

const font = (stack: string) => stack.replace(/[^\w\s,'"-]/g, '').replace(/"/g, "'");

interface Look {
  text: string;
  accent: string;
  content: string;
  background: string;
  font: string;
  width: number;
  brand: Brand;
}

const HEADING_SIZES = { 1: 28, 2: 22, 3: 18 } as const;

const pad = (b: { padding?: number }, side = 24) => `${b.padding ?? 12}px ${side}px`;
const alignAttr = (a: string | undefined) => (a ? ` align="${a}"` : '');

function footerHtml(b: { text?: string; viewInBrowser?: boolean }, look: Look): string {
  const { text } = b;
  const { companyName, address } = look.brand.footer;
  const lines: string[] = [];
  if (text) lines.push(escapeText(text).replace(/\r?\n/g, '<br />'));
  const org = [companyName, address].filter((s) => s.trim()).map((s) => escapeText(s).replace(/\r?\n/g, ', '));
  if (org.length) lines.push(org.join(' · '));
  const link = `color:${look.text};text-decoration:underline;`;
  // "View in browser" (`/v/<token>`, set per email at send) is on unless the block turns it off.
  const view = b.viewInBrowser === false ? '' : `<a href="{{ viewInBrowserUrl }}" style="${link}">View in browser</a> · `;
  lines.push(`${view}<a href="{{ unsubscribeUrl }}" style="${link}">Unsubscribe</a> · <a href="{{ manageUrl }}" style="${link}">Manage preferences</a>`);
  return lines.map((l) => `<p style="margin:0 0 6px 0;">${l}</p>`).join('');
}

/** One block as the MJML elements a column holds. */
function leaf(b: LeafBlock, look: Look): string {
  switch (b.type) {
    case 'heading': {
      const size = HEADING_SIZES[b.level ?? 1];
      return `<mj-text padding="${pad(b)}"${alignAttr(b.align)} color="${colour(b.color, look.text)}" font-size="${size}px" line-height="1.25" font-weight="700"><h${b.level ?? 1} style="margin:0;font-size:${size}px;font-weight:700;">${escapeText(b.text)}</h${b.level ?? 1}></mj-text>`;
    }
    case 'text': {
      const size = b.fontSize ?? 16;
      return `<mj-text padding="${pad(b)}"${alignAttr(b.align)} color="${colour(b.color, look.text)}" font-size="${size}px" line-height="1.5">${sanitizeRichText(b.html, `color:${look.accent};`)}</mj-text>`;
    }
    case 'button': {
      const href = safeHref(b.href);
      return `<mj-button padding="${pad(b)}"${alignAttr(b.align)}${href ? ` href="${escapeAttr(href)}"` : ''} background-color="${colour(b.color, look.accent)}" color="${colour(b.textColor, '#fefefe')}" font-size="16px" font-weight="600" border-radius="6px" inner-padding="12px 24px">${escapeText(b.text)}</mj-button>`;
    }
    case 'image': {
      const src = safeHref(b.src);
      if (!src) return '';
      const href = safeHref(b.href);
      return `<mj-image padding="${pad(b)}"${alignAttr(b.align)} src="${escapeAttr(src)}" alt="${escapeAttr(b.alt)}"${href ? ` href="${escapeAttr(href)}"` : ''}${b.width ? ` width="${b.width}px"` : ''} />`;
    }
    case 'divider':
      return `<mj-divider padding="${pad(b)}" border-color="${colour(b.color, '#d9dde3')}" border-width="${b.thickness ?? 1}px" />`;
    case 'spacer':
      return `<mj-spacer height="${b.height ?? 24}px" />`;
    case 'social': {
      const links = b.links.map((l) => ({ ...l, href: safeHref(l.href) })).filter((l) => l.href);
      if (!links.length) return '';
      const items = links
        .map((l) => {
          // MJML has no Mastodon icon: it gets the web one, named in its alt.
          const name = `${l.network === 'mastodon' ? 'web' : l.network}-noshare`;
          return `<mj-social-element name="${name}" href="${escapeAttr(l.href!)}" alt="${l.network}"></mj-social-element>`;
        })
        .join('');
      return `<mj-social padding="${pad(b)}"${alignAttr(b.align)} mode="horizontal" icon-size="24px">${items}</mj-social>`;
    }
    case 'html':
      // Kept as written (power users), inside an mj-text so it gets a cell of its own; only a
      // closing MJML tag, which would end the block early, is defused.
      return `<mj-text padding="${pad(b, 0)}" color="${look.text}">${b.html.replace(/<(\/?)mj-/gi, '&lt;$1mj-')}</mj-text>`;
    case 'footer':
      return `<mj-text padding="${pad(b)}" align="${b.align ?? 'center'}" color="${look.text}" font-size="12px" line-height="1.5">${footerHtml(b, look)}</mj-text>`;
  }
}

function section(b: Block, look: Look): string {
  const bg = colour(b.background, look.content);
  if (b.type === 'columns') {
    const share = (100 / b.columns.length).toFixed(4).replace(/\.?0+$/, '');
    const cols = b.columns.map((c) => `<mj-column width="${share}%">${c.blocks.map((x) => leaf(x, look)).join('')}</mj-column>`).join('');
    return `<mj-section background-color="${bg}" padding="${b.padding ?? 0}px 0px">${cols}</mj-section>`;
  }
  const inner = leaf(b, look);
  if (!inner) return '';
  return `<mj-section background-color="${bg}" padding="0px"><mj-column>${inner}</mj-column></mj-section>`;
}

/** The MJML source of a document under a brand (exported for the tests and the bench). */
export function toMjml(doc: EmailDocument, brand: Brand = DEFAULT_BRAND): string {
  const s = doc.settings ?? {};
  const look: Look = {
    text: colour(s.textColor, brand.colors.text),
    accent: colour(s.accentColor, brand.colors.accent),
    content: colour(s.contentBackground, brand.colors.content),
    background: colour(s.background, brand.colors.background),
    font: font(s.fontFamily ?? brand.fontFamily),
    width: s.width ?? 600,
    brand,
  };
  const preview = s.preheader ? `<mj-preview>${escapeText(s.preheader)}</mj-preview>` : '';
  const head = [
    '<mj-head>',
    preview,
    `<mj-attributes><mj-all font-family="${look.font}" /><mj-text color="${look.text}" /></mj-attributes>`,
    // Declaring both schemes tells clients the email is dark-mode aware, so they apply their gentler handling.
    '<mj-raw><meta name="color-scheme" content="light dark" /><meta name="supported-color-schemes" content="light dark" /></mj-raw>',
    '<mj-style>:root { color-scheme: light dark; supported-color-schemes: light dark; } a { color: inherit; }</mj-style>',
    '</mj-head>',
  ].join('');
  const body = doc.blocks.map((b) => section(b, look)).join('');
  return `<mjml><mj-head>${head.slice('<mj-head>'.length, -'</mj-head>'.length)}</mj-head><mj-body background-color="${look.background}" width="${look.width}px">${body}</mj-body></mjml>`;
}

// MJML's hidden preview text and its filler, which the text part must not repeat.
const PREVIEW_DIV = /<div style="display:none;font-size:1px;[^"]*">[\s\S]*?<\/div>/;

/**
 * The text part of compiled HTML. Liquid is parked under placeholders without spaces while the
 * converter wraps lines, so `{{ first name }}` cannot be split across two lines.
 */
export function compiledText(html: string): string {
  const parked: string[] = [];
  const source = liquidPieces(html.replace(PREVIEW_DIV, ''))
    .map((p) => {
      if (!p.liquid) return p.text;
      parked.push(p.text);
      return `LQD${parked.length - 1}X`;
    })
    .join('');
  return htmlToPlainText(source).replace(/LQD(\d+)X/g, (_, i) => parked[Number(i)]);
}

/**
 * MJML's output without its indentation (about a quarter of its bytes): compiled once per version
 * but tracked, rendered and handed over per recipient, costs that grow with its size
 * (bench/editor.ts). A line break and the spaces after it render as the one space a line break
 * alone renders as. (MJML's own `minify` loads its minifier
 * by dynamic import, which the test runner's module system refuses.)
 */
const dedent = (html: string) =>
  // A raw-HTML block may bring preformatted text, whose spaces are its content: left as it is then.
  /<pre[\s>]|<textarea[\s>]|white-space\s*:\s*pre/i.test(html) ? html : html.replace(/\n[ \t]+/g, '\n').replace(/\n{2,}/g, '\n');

/**
 * Compiles a document (validated first; DocumentInvalid when it is not) under a brand, with MJML's
 * strict validation: MJML refusing what we generated is our bug, and fails loudly.
 */
export async function compileDocument(input: unknown, brand: Brand = DEFAULT_BRAND, prefix = 'document'): Promise<Compiled> {
  const doc = parseDocument(input, prefix);
  const source = toMjml(doc, brand);
  compiles++;
  const out = await mjml2html(source, { validationLevel: 'strict', keepComments: false });
  return { html: dedent(out.html), text: compiledText(out.html), mjml: source };
}
