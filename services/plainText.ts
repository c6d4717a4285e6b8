import { compile } from 'html-to-text';
import type { FormatCallback } from 'html-to-text';

/**
 * The text/plain part generated from a rendered HTML body, for messages whose template gives no
 * `text` of its own. Mail clients that cannot show HTML (and spam filters, which score an
 * HTML-only message) read this part, so what the HTML says and links to must survive:
 * - links stay as `text [url]` (a link whose text is its url is written once), so the unsubscribe
 *   link of a marketing template is in the text part just as it is in the HTML;
 * - images become their alt text, or nothing: a tracking pixel or a spacer has none;
 * - lines wrap at 78 characters (RFC 5322's recommended line length); headings keep their case;
 * - `<head>`, `<style>` and `<script>` say nothing to a reader and are dropped.
 */

/** An image as its alt text, or nothing. */
const altText: FormatCallback = (elem, _walk, builder) => {
  const alt = typeof elem.attribs?.alt === 'string' ? elem.attribs.alt.trim() : '';
  if (alt) builder.addInline(alt);
};

export const HTML_TO_TEXT_OPTIONS = {
  wordwrap: 78,
  formatters: { altText },
  // Rendered bodies are bounded by the render budget's memory limit; these bound the parse of one that is not.
  limits: { maxInputLength: 2_000_000, maxDepth: 200, ellipsis: '...' },
  selectors: [
    { selector: 'a', options: { linkBrackets: ['[', ']'] as [string, string], hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    { selector: 'img', format: 'altText' },
    { selector: 'head', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'script', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
  ],
};

// Compiled once: compiling the selectors costs more than converting a typical email.
const convert = compile(HTML_TO_TEXT_OPTIONS);

/** The text part of a rendered HTML body. */
export function htmlToPlainText(html: string): string {
  return convert(html);
}
