import { Parser } from 'htmlparser2';

/**
 * Escaping and sanitising for the block compiler (services/emailCompiler.ts). Every text of a block
 * is a Liquid source: `{{ … }}` and `{% … %}` pass through untouched (Liquid renders, and escapes,
 * them per recipient), everything around them is escaped for the place it lands in.
 */

const LIQUID = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;

/** Splits a source into text and Liquid pieces, in order. */
export function liquidPieces(source: string): Array<{ liquid: boolean; text: string }> {
  const out: Array<{ liquid: boolean; text: string }> = [];
  let at = 0;
  for (const m of source.matchAll(LIQUID)) {
    if (m.index > at) out.push({ liquid: false, text: source.slice(at, m.index) });
    out.push({ liquid: true, text: m[0] });
    at = m.index + m[0].length;
  }
  if (at < source.length) out.push({ liquid: false, text: source.slice(at) });
  return out;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Text for an element's content: markup escaped, Liquid kept. */
export function escapeText(source: string): string {
  return liquidPieces(source)
    .map((p) => (p.liquid ? p.text : escapeHtml(p.text)))
    .join('');
}

/**
 * A value for a double-quoted attribute: markup escaped, Liquid kept. A double quote inside Liquid
 * (`{{ a ?? "x" }}`) would end the attribute, so it becomes a single quote, which Liquid reads the same.
 */
export function escapeAttr(source: string): string {
  return liquidPieces(source)
    .map((p) => (p.liquid ? p.text.replace(/"/g, "'").replace(/[<>]/g, '') : escapeHtml(p.text)))
    .join('');
}

/** Links we write into an href: absolute web, mail and phone links, or Liquid. */
export function safeHref(href: string | undefined): string | null {
  const h = (href ?? '').trim();
  if (!h) return null;
  return /^(?:https?:\/\/|mailto:|tel:|\{\{)/i.test(h) ? h : null;
}

const ALLOWED = new Set(['p', 'br', 'strong', 'b', 'em', 'i', 'a', 'ul', 'ol', 'li']);
const VOID = new Set(['br']);
// Content of these is dropped with the element, not kept as text.
const DROP_CONTENT = new Set(['script', 'style', 'head', 'title', 'iframe', 'object', 'template', 'noscript', 'textarea', 'select']);

/**
 * A text block's HTML reduced to the allowed subset: paragraphs, <br>, bold, italic, links (http(s),
 * mailto, tel or Liquid hrefs only) and lists. Other tags are dropped (their text kept), every
 * attribute but a link's href is dropped, and text is re-escaped, so the result is well formed.
 * `linkStyle` is written on every link (the accent colour, inline because mail clients drop <style>).
 */
export function sanitizeRichText(html: string, linkStyle = ''): string {
  // Liquid can hold characters the HTML parser would read as markup ({% if a < b %}): park it first.
  const parked: string[] = [];
  const source = liquidPieces(html)
    .map((p) => {
      if (!p.liquid) return p.text;
      parked.push(p.text);
      return `\u0001${parked.length - 1}\u0002`;
    })
    .join('');
  const restore = (s: string, attr: boolean) =>
    s.replace(/\u0001(\d+)\u0002/g, (_, i) => (attr ? parked[Number(i)].replace(/"/g, "'").replace(/[<>]/g, '') : parked[Number(i)]));
  let out = '';
  const open: string[] = [];
  let dropping = 0;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (DROP_CONTENT.has(name)) dropping++;
        if (dropping || !ALLOWED.has(name)) return;
        if (name === 'a') {
          const href = safeHref(restore(attribs.href ?? '', false));
          out += href ? `<a href="${restore(escapeAttr(href), true)}" target="_blank"${linkStyle ? ` style="${linkStyle}"` : ''}>` : '<a>';
        } else {
          out += `<${name === 'b' ? 'strong' : name === 'i' ? 'em' : name}>`;
        }
        if (!VOID.has(name)) open.push(name);
      },
      ontext(text) {
        if (dropping) return;
        out += restore(escapeHtml(text), false);
      },
      onclosetag(name) {
        if (DROP_CONTENT.has(name)) {
          dropping = Math.max(0, dropping - 1);
          return;
        }
        if (dropping || !ALLOWED.has(name) || VOID.has(name)) return;
        const at = open.lastIndexOf(name);
        if (at < 0) return;
        // Close whatever was left open inside it, so the output nests properly.
        while (open.length > at) {
          const tag = open.pop()!;
          out += `</${tag === 'b' ? 'strong' : tag === 'i' ? 'em' : tag}>`;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(source);
  parser.end();
  while (open.length) {
    const tag = open.pop()!;
    out += `</${tag === 'b' ? 'strong' : tag === 'i' ? 'em' : tag}>`;
  }
  return out;
}
