import type { Block, EmailDocument, LeafBlock } from './emailDocument';
import type { SentenceLanguage } from './fieldSentences/types';
import { TEMPLATE_CHECK_WORDS } from './templateCheckWords';

/**
 * The editor's checks (POST /templates/preview `checks`): advice about a message before it is sent.
 * Pure: the caller gives the sources, the compiled HTML and the variable names the project knows.
 * Nothing here blocks saving; `error` marks what will visibly break (or break the law), `warning` the rest.
 * Messages are in the request's language (lib/templateCheckWords.ts); `rule` is the same in all.
 */
export interface Check {
  rule:
    | 'unknown-variable'
    | 'no-unsubscribe'
    | 'image-alt'
    | 'link-missing'
    | 'link-insecure'
    | 'html-size'
    | 'subject-empty'
    | 'subject-long'
    | 'no-preheader';
  severity: 'warning' | 'error';
  message: string;
  blockId?: string;
}

export interface CheckInput {
  subject: string;
  /** HTML source as stored (compiled for blocks), before Liquid renders it. */
  html: string;
  text?: string | null;
  document?: EmailDocument | null;
  type?: 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';
  /** Variable names a send provides: contact fields, identity and link variables, preview data. */
  knownVariables: readonly string[];
}

/** Gmail clips a message past 102 KB: the rest, the footer's unsubscribe link with it, hides behind "View entire message". */
export const MAX_HTML_BYTES = 102 * 1024;
/** RFC 5322's recommended line length; inboxes cut longer subjects anyway. */
export const MAX_SUBJECT_CHARS = 78;

/** Variables every send has (lib/contactData IDENTITY, lib/unsubscribe linksFor, lib/viewLinks) and Liquid's own. */
export const BUILT_IN_VARIABLES = [
  'email',
  'id',
  'svc_id',
  'svc_email',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
  'viewInBrowserUrl',
  'data',
  'forloop',
  'true',
  'false',
  'nil',
  'null',
  'empty',
  'blank',
];

/** Levenshtein distance, bounded use only (variable names). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The closest known name within a small distance (1 for short names, 2 otherwise), or null. */
export function didYouMean(name: string, known: readonly string[]): string | null {
  const limit = name.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestDistance = limit + 1;
  for (const k of known) {
    const d = editDistance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** The root names of `{{ … }}` outputs (`{{ user.name | upcase }}` → `user`; `{{ first name }}` → `first name`; `data["x"]` → `x`). */
export function outputVariables(source: string): string[] {
  const locals = new Set<string>();
  for (const m of source.matchAll(/\{%-?\s*(?:for\s+([\w-]+)\s+in|assign\s+([\w-]+)\s*=|capture\s+([\w-]+)|increment\s+([\w-]+)|decrement\s+([\w-]+))/g)) {
    locals.add(m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5]);
  }
  const out: string[] = [];
  for (const m of source.matchAll(/\{\{-?([\s\S]*?)-?\}\}/g)) {
    const first = m[1].split(/\||\?\?/)[0].trim();
    const data = /^data\s*\[\s*(["'])(.*?)\1\s*\]/.exec(first);
    const name = data ? data[2] : (/^[\p{L}_][\p{L}\p{N}_ -]*?(?=$|[.[\s]*$|\.|\[)/u.exec(first)?.[0] ?? '').trim();
    if (!name || /^["'\d]/.test(first) || locals.has(name)) continue;
    out.push(name);
  }
  return [...new Set(out)];
}

const allBlocks = (doc: EmailDocument): Array<Block | LeafBlock> =>
  doc.blocks.flatMap((b) => (b.type === 'columns' ? [b, ...b.columns.flatMap((c) => c.blocks)] : [b]));

const HREF = /<a\b[^>]*?\bhref\s*=\s*(["'])(.*?)\1/gi;

/** Links of an HTML source: each href, with whether it is present at all. */
function htmlLinks(html: string): string[] {
  return [...html.matchAll(HREF)].map((m) => m[2].trim());
}

export function runChecks(input: CheckInput, lang: SentenceLanguage = 'en'): Check[] {
  const words = TEMPLATE_CHECK_WORDS[lang];
  const checks: Check[] = [];
  const known = [...new Set([...BUILT_IN_VARIABLES, ...input.knownVariables])];
  const sources = [input.subject, input.html, input.text ?? ''].join('\n');
  for (const name of outputVariables(sources)) {
    if (known.includes(name)) continue;
    const guess = didYouMean(name, known);
    checks.push({
      rule: 'unknown-variable',
      severity: 'warning',
      message: words.unknownVariable(name, guess),
    });
  }

  if (input.type === 'MARKETING' && !/\{\{-?\s*(?:unsubscribeUrl|manageUrl)\b/.test(input.html)) {
    checks.push({
      rule: 'no-unsubscribe',
      severity: 'error',
      message: words.noUnsubscribe,
    });
  }

  const doc = input.document;
  if (doc) {
    for (const b of allBlocks(doc)) {
      if (b.type === 'image' && !b.alt.trim()) checks.push({ rule: 'image-alt', severity: 'error', message: words.blockImageNoAlt, blockId: b.id });
      if (b.type === 'image' && !b.src.trim()) checks.push({ rule: 'link-missing', severity: 'error', message: words.blockImageNoSource, blockId: b.id });
      const links: string[] =
        b.type === 'button'
          ? [b.href]
          : b.type === 'image'
            ? [b.src, ...(b.href ? [b.href] : [])]
            : b.type === 'social'
              ? b.links.map((l) => l.href)
              : b.type === 'text'
                ? htmlLinks(b.html)
                : [];
      if (b.type === 'button' && !b.href.trim()) checks.push({ rule: 'link-missing', severity: 'error', message: words.buttonNoLink(b.text), blockId: b.id });
      if ((b.type === 'social' && b.links.some((l) => !l.href.trim())) || (b.type === 'text' && links.some((l) => !l || l === '#')))
        checks.push({ rule: 'link-missing', severity: 'error', message: words.linkHereNoAddress, blockId: b.id });
      if (links.some((l) => /^http:\/\//i.test(l.trim())))
        checks.push({ rule: 'link-insecure', severity: 'warning', message: words.linkHereInsecure, blockId: b.id });
    }
    if (!doc.settings?.preheader?.trim()) checks.push({ rule: 'no-preheader', severity: 'warning', message: words.noPreheader });
  } else {
    for (const m of input.html.matchAll(/<img\b[^>]*>/gi)) {
      if (!/\balt\s*=/i.test(m[0])) checks.push({ rule: 'image-alt', severity: 'error', message: words.imageNoAltAttribute(m[0].slice(0, 80)) });
    }
    const links = htmlLinks(input.html);
    if (links.some((l) => !l || l === '#') || /<a\b(?![^>]*\bhref\s*=)[^>]*>/i.test(input.html))
      checks.push({ rule: 'link-missing', severity: 'error', message: words.linkNoAddress });
    if (links.some((l) => /^http:\/\//i.test(l))) checks.push({ rule: 'link-insecure', severity: 'warning', message: words.linkInsecure });
    // A preheader in HTML is a hidden element near the top (display:none); the editor's own compiler writes one.
    if (!/display\s*:\s*none/i.test(input.html)) checks.push({ rule: 'no-preheader', severity: 'warning', message: words.noPreheader });
  }

  const bytes = Buffer.byteLength(input.html, 'utf8');
  if (bytes > MAX_HTML_BYTES)
    checks.push({
      rule: 'html-size',
      severity: 'warning',
      message: words.htmlSize(Math.ceil(bytes / 1024), MAX_HTML_BYTES / 1024),
    });

  const subject = input.subject.trim();
  if (!subject) checks.push({ rule: 'subject-empty', severity: 'error', message: words.subjectEmpty });
  else if ([...subject].length > MAX_SUBJECT_CHARS)
    checks.push({
      rule: 'subject-long',
      severity: 'warning',
      message: words.subjectLong([...subject].length, MAX_SUBJECT_CHARS),
    });
  return checks;
}
