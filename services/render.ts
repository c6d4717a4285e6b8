import { Liquid, Tokenizer, TypeGuards } from 'liquidjs';
import type { Template } from 'liquidjs';

/** Longest subject or body source accepted; the 1 MB JSON body limit keeps real templates well below it. */
const MAX_TEMPLATE_LENGTH = 1_000_000;

/**
 * Work bounds of one parse or render call: a hostile template (huge ranges, self-doubling strings,
 * endless loops) fails with a RenderError in about a second instead of hanging a worker.
 */
export const RENDER_LIMITS = {
  // Our rewrites lengthen a source a little; the raw length is checked against MAX_TEMPLATE_LENGTH first.
  parseLimit: 2 * MAX_TEMPLATE_LENGTH,
  renderLimit: 1000,
  memoryLimit: 10_000_000,
};

export class RenderError extends Error {
  override name = 'RenderError';
}

export interface RenderInput {
  subject: string;
  body: string;
}

export type Variables = Record<string, unknown>;

// Liquid's own `default` filter also replaces "" and false; `??` must only fill in missing or null values.
const coalesce = (value: unknown, fallback: unknown) => (value === undefined || value === null ? fallback : value);

// Words Liquid reads as operators, so `{{ a and b }}` stays an expression instead of a field named "a and b".
const OPERATOR_WORDS = new Set(['and', 'or', 'contains']);
const NAME_WORD = /^[\p{L}\p{N}_-]+$/u;
const NAME_START = /^[\p{L}_]/u;

/** `first name` → `data["first name"]`; anything that is not a run of bare words is returned unchanged. */
function operand(text: string): string {
  const name = text.trim();
  const words = name.split(/\s+/);
  if (words.length < 2 || !NAME_START.test(name)) return text;
  if (!words.every((w) => NAME_WORD.test(w) && !OPERATOR_WORDS.has(w))) return text;
  return ` data["${name}"] `;
}

/** Splits an output's content at top-level `|` and `??` (outside quoted strings), in one linear pass. */
function splitOutput(content: string): { parts: string[]; separators: string[] } {
  const parts: string[] = [];
  const separators: string[] = [];
  let quote = '';
  let escaped = false;
  let start = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content[i];
    if (quote) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '|' || (c === '?' && content[i + 1] === '?')) {
      parts.push(content.slice(start, i));
      separators.push(c === '|' ? '|' : '??');
      if (c === '?') i++;
      start = i + 1;
    }
  }
  parts.push(content.slice(start));
  return { parts, separators };
}

/**
 * Our two additions to output syntax, turned into plain Liquid: names with spaces, and `a ?? b`
 * becoming `a | coalesce: b` (so `??` applies to everything on its left, filters included).
 */
function rewriteOutput(content: string): string {
  const { parts, separators } = splitOutput(content);
  let out = operand(parts[0]);
  separators.forEach((sep, i) => {
    out += sep === '??' ? `| coalesce: ${operand(parts[i + 1])}` : `|${parts[i + 1]}`;
  });
  return out;
}

/**
 * Rewrites only the content of `{{ }}` outputs; tags, raw blocks and text are copied untouched.
 * Liquid's own tokenizer finds the outputs, so quoting and `{% raw %}` follow exactly the engine's rules.
 */
function preprocess(liquid: Liquid, source: string): string {
  const tokens = new Tokenizer(source, liquid.options.operators).readTopLevelTokens(liquid.options);
  let out = '';
  let copied = 0;
  for (const token of tokens) {
    if (!TypeGuards.isOutputToken(token)) continue;
    const [from, to] = token.contentRange;
    out += source.slice(copied, from) + rewriteOutput(source.slice(from, to));
    copied = to;
  }
  return out + source.slice(copied);
}

const CACHE_ENTRIES = 200;
const CACHEABLE_LENGTH = 100_000;

/** One Liquid engine plus a small cache of parsed sources: a campaign renders one template per recipient. */
function compiler(html: boolean) {
  const liquid = new Liquid({
    ...RENDER_LIMITS,
    // An empty in-memory partial map: nothing can ever be read from the filesystem.
    templates: {},
    strictFilters: true,
    ownPropertyOnly: true,
    // The body is HTML: every output is HTML-escaped unless it ends in `| raw`, so contact data
    // cannot inject markup. The subject is a plain-text header and is not escaped.
    outputEscape: html ? 'escape' : undefined,
  });
  // Partials have no source to come from; removing the tags makes them a parse error with a clear message.
  for (const tag of ['include', 'render', 'layout']) delete liquid.tags[tag];
  liquid.registerFilter('coalesce', coalesce);
  if (html) {
    // An explicit `| escape` must not be escaped a second time by outputEscape.
    for (const name of ['escape', 'escape_once']) {
      const builtin = liquid.filters[name];
      liquid.registerFilter(name, { handler: typeof builtin === 'function' ? builtin : builtin.handler, raw: true });
    }
  }

  const cache = new Map<string, Template[]>();
  function parse(source: string): Template[] {
    const hit = cache.get(source);
    if (hit) return hit;
    if (source.length > MAX_TEMPLATE_LENGTH) throw new RenderError(`template is longer than ${MAX_TEMPLATE_LENGTH} characters`);
    const parsed = liquid.parse(preprocess(liquid, source));
    if (source.length <= CACHEABLE_LENGTH) {
      if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
      cache.set(source, parsed);
    }
    return parsed;
  }
  // Synchronous: nothing we allow is asynchronous (no partials, no async filters), and the async
  // renderer costs several promises per node, which a campaign batch pays per recipient.
  return { parse, render: (templates: Template[], scope: object) => liquid.renderSync(templates, scope) as string };
}

const text = compiler(false);
const html = compiler(true);

function asRenderError(err: unknown, part?: string): RenderError {
  const message = err instanceof Error ? err.message : String(err);
  return new RenderError(part ? `${part}: ${message}` : message);
}

/** Parses without rendering; the readable problem (with line and column when Liquid gives them), or null. */
export function checkTemplate(source: string): string | null {
  try {
    html.parse(source);
    return null;
  } catch (err) {
    return asRenderError(err).message;
  }
}

/**
 * Renders a subject and an HTML body with the same variables. Variables are reachable by name and
 * also under `data` (which always means the variables, so `{{ data["first name"] }}` keeps working
 * even when a contact has a custom field called `data`). Throws RenderError naming the part.
 */
async function renderPart(compiled: typeof text, source: string, variables: Variables, part: string): Promise<string> {
  try {
    return compiled.render(compiled.parse(source), { ...variables, data: variables });
  } catch (err) {
    throw asRenderError(err, part);
  }
}

/** Renders plain text (no HTML escaping, line breaks kept): webhook bodies and other non-HTML payloads. */
export function renderText(source: string, variables: Variables, part = 'text'): Promise<string> {
  return renderPart(text, source, variables, part);
}

export async function renderTemplate(template: RenderInput, variables: Variables): Promise<RenderInput> {
  const subject = await renderPart(text, template.subject, variables, 'subject');
  const body = await renderPart(html, template.body, variables, 'body');
  // A rendered subject is a mail header: a variable holding a line break must not split it.
  return { subject: subject.replace(/[\r\n]+/g, ' ').trim(), body };
}
