import { Liquid, Tokenizer, TypeGuards } from 'liquidjs';
import type { Template } from 'liquidjs';
import { htmlToPlainText } from './plainText';

/** Longest subject or body source accepted; the 1 MB JSON body limit keeps real templates well below it. */
const MAX_TEMPLATE_LENGTH = 1_000_000;

/**
 * The render budget of one email (its subject and body together), in ms. Rendering is synchronous
 * (see `compiler`), so while it runs the worker's thread serves no one else, whichever project's
 * deliveries wait: a template that needs more than this fails instead of stalling every tenant.
 * Real templates render in well under a millisecond.
 */
export const RENDER_BUDGET_MS = 50;

/**
 * Render time one batch activity may spend in all (a campaign page, a /v1/send batch). With the
 * per-email budget and the yields between recipients it bounds how long a batch of slow templates
 * keeps a worker's activity slot: recipients past it fail with a RenderBudgetExceeded.
 */
export const BATCH_RENDER_BUDGET_MS = 2_000;

/**
 * Work bounds of one parse or render call: a hostile template (huge ranges, self-doubling strings,
 * endless loops) fails with a RenderError within the render budget instead of hanging a worker.
 */
export const RENDER_LIMITS = {
  // Our rewrites lengthen a source a little; the raw length is checked against MAX_TEMPLATE_LENGTH first.
  parseLimit: 2 * MAX_TEMPLATE_LENGTH,
  // Liquid checks the time between nodes (each loop iteration included); renders pass what is left of their budget.
  renderLimit: RENDER_BUDGET_MS,
  // Counted in range elements and filter-built characters. A range is built as an array before the
  // time bound is first checked, so this also bounds that allocation (2M elements: ~20 ms).
  memoryLimit: 2_000_000,
};

export class RenderError extends Error {
  override name = 'RenderError';
}

/** A render that needed more time or memory than its budget; the same template would again. */
export class RenderBudgetExceeded extends RenderError {
  override name = 'RenderBudgetExceeded';
  constructor(
    message: string,
    readonly over: 'time' | 'memory' = 'time',
  ) {
    super(message);
  }
}

export interface RenderInput {
  subject: string;
  body: string;
  /** Liquid source of the text/plain part; absent or null: the part is generated from the rendered body. */
  text?: string | null;
}

/** A rendered message: its subject, HTML body and text/plain part. */
export interface Rendered {
  subject: string;
  body: string;
  text: string;
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
  return { parse, render: (templates: Template[], scope: object, renderLimit: number) => liquid.renderSync(templates, scope, { renderLimit }) as string };
}

const text = compiler(false);
const html = compiler(true);

function asRenderError(err: unknown, part?: string, budgetMs?: number): RenderError {
  const message = err instanceof Error ? err.message : String(err);
  const prefix = part ? `${part}: ` : '';
  if (/^template render limit exceeded/.test(message))
    return new RenderBudgetExceeded(`${prefix}rendering takes longer than the render budget of ${budgetMs ?? RENDER_BUDGET_MS} ms`);
  if (/^memory alloc limit exceeded/.test(message))
    return new RenderBudgetExceeded(
      `${prefix}rendering needs more memory than the render budget allows (${RENDER_LIMITS.memoryLimit.toLocaleString('en-US')} range items or characters)`,
      'memory',
    );
  return new RenderError(prefix + message);
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

type Compiler = typeof text;

function parsePart(compiled: Compiler, source: string, part: string): Template[] {
  try {
    return compiled.parse(source);
  } catch (err) {
    throw asRenderError(err, part);
  }
}

function renderParsed(compiled: Compiler, templates: Template[], variables: Variables, part: string, deadline: number, budgetMs: number): string {
  const left = deadline - performance.now();
  if (left <= 0) throw new RenderBudgetExceeded(`${part}: rendering takes longer than the render budget of ${budgetMs} ms`);
  try {
    return compiled.render(templates, { ...variables, data: variables }, left);
  } catch (err) {
    throw asRenderError(err, part, budgetMs);
  }
}

export interface RenderBudget {
  /** ms the render may take (default RENDER_BUDGET_MS). */
  budgetMs?: number;
}

/**
 * The second try's budget, in budgets: a busy machine (two cores shared by the worker, Temporal
 * and Postgres under a campaign) stalls a render for longer than one budget often enough that an
 * equal retry failed good mail under load, while an endless template still fails within 4 budgets.
 */
const RETRY_BUDGETS = 4;

/**
 * Runs `render` (given its deadline) within the budget. Parsing is outside it: bounded by the
 * source's length and cached. The budget is wall time, so a render that a GC pause or a busy
 * machine stopped midway gets one more try with more room; a template that is slow in itself fails both.
 */
export function withinBudget<T>(budgetMs: number, render: (deadline: number) => T): T {
  try {
    return render(performance.now() + budgetMs);
  } catch (err) {
    if (!(err instanceof RenderBudgetExceeded) || err.over !== 'time') throw err;
    return render(performance.now() + budgetMs * RETRY_BUDGETS);
  }
}

/** Renders plain text (no HTML escaping, line breaks kept): webhook bodies and other non-HTML payloads. */
export async function renderText(source: string, variables: Variables, part = 'text', { budgetMs = RENDER_BUDGET_MS }: RenderBudget = {}): Promise<string> {
  const templates = parsePart(text, source, part);
  return withinBudget(budgetMs, (deadline) => renderParsed(text, templates, variables, part, deadline, budgetMs));
}

/**
 * Renders a subject, an HTML body and the text/plain part with the same variables. Variables are
 * reachable by name and also under `data` (which always means the variables, so
 * `{{ data["first name"] }}` keeps working even when a contact has a custom field called `data`).
 * The text part is the template's own `text` (rendered like a plain-text payload, no HTML
 * escaping) or, without one, generated from the rendered body (services/plainText.ts). All three
 * share one render budget: the conversion cannot be interrupted midway, so a body whose conversion
 * overran it fails after it like a slow render. Throws RenderError naming the part
 * (RenderBudgetExceeded when over a budget).
 */
export async function renderTemplate(template: RenderInput, variables: Variables, { budgetMs = RENDER_BUDGET_MS }: RenderBudget = {}): Promise<Rendered> {
  const subjectTemplates = parsePart(text, template.subject, 'subject');
  const bodyTemplates = parsePart(html, template.body, 'body');
  const textTemplates = template.text != null ? parsePart(text, template.text, 'text') : null;
  return withinBudget(budgetMs, (deadline) => {
    const subject = renderParsed(text, subjectTemplates, variables, 'subject', deadline, budgetMs);
    const body = renderParsed(html, bodyTemplates, variables, 'body', deadline, budgetMs);
    let plain: string;
    if (textTemplates) {
      plain = renderParsed(text, textTemplates, variables, 'text', deadline, budgetMs);
    } else {
      plain = htmlToPlainText(body);
      if (performance.now() > deadline) throw new RenderBudgetExceeded(`text: rendering takes longer than the render budget of ${budgetMs} ms`);
    }
    // A rendered subject is a mail header: a variable holding a line break must not split it.
    return { subject: subject.replace(/[\r\n]+/g, ' ').trim(), body, text: plain };
  });
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The process's CPU time, ms: the batch budget's clock. A render is synchronous, so while it runs the
 * process's CPU is the render's (and a little of the SDK's and libuv's threads); time the machine
 * gave to other processes is not counted. On wall time a saturated 2-core machine (load 20) made
 * 0.1 ms renders average 2 ms and failed 17,975 recipients of a 1,000,000 campaign.
 */
export function cpuClockMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

export interface BatchRenderer {
  /** renderTemplate within the batch's budgets; throws RenderError (RenderBudgetExceeded when over a budget). */
  render(template: RenderInput, variables: Variables): Promise<Rendered>;
  /** Render time spent so far, ms. */
  readonly spentMs: number;
}

/**
 * The renderer of one batch activity (a campaign page, a /v1/send batch), which renders many
 * recipients in a row:
 * - before each render it yields to the event loop (setImmediate), so the thread goes back to the
 *   worker's other activities, whatever project they send for, at least every render budget;
 * - a template over its budget is tried once more on a later turn before it counts as slow: the
 *   budget is wall time, and a GC pause or a busy machine can stop a normal render twice in a row
 *   (once withinBudget's own retry is spent). A template slow on both turns fails this recipient and
 *   the batch's later recipients of the same template with the same error, without rendering again;
 * - once `batchBudgetMs` of render time is spent, the remaining recipients fail (RenderBudgetExceeded).
 *   That time is the process's CPU time (cpuClockMs), not wall time, and each render is charged at
 *   most what one render may take (`budgetMs` and withinBudget's retry): neither a busy machine nor
 *   one stall of the process spends the budget of a batch of quick templates, only templates that
 *   are slow themselves, recipient after recipient (on wall time, loaded-machine benches failed
 *   694 recipients of a 200,000 campaign and 17,975 of a 1,000,000 one).
 * The activities record these as FAILED rows, so a retry of the activity renders none of them again.
 */
export function batchRenderer(opts: { budgetMs?: number; batchBudgetMs?: number; now?: () => number } = {}): BatchRenderer {
  const budgetMs = opts.budgetMs ?? RENDER_BUDGET_MS;
  const batchBudgetMs = opts.batchBudgetMs ?? BATCH_RENDER_BUDGET_MS;
  const now = opts.now ?? cpuClockMs;
  const overBudget = new Map<string, string>();
  // The most one attempt can take when the template is at fault: its budget, then withinBudget's retry.
  const mostPerAttempt = budgetMs * (1 + RETRY_BUDGETS);
  let spentMs = 0;
  const attempt = async (template: RenderInput, variables: Variables) => {
    const started = now();
    try {
      return await renderTemplate(template, variables, { budgetMs });
    } finally {
      spentMs += Math.min(now() - started, mostPerAttempt);
    }
  };
  return {
    get spentMs() {
      return spentMs;
    },
    async render(template, variables) {
      await nextTurn();
      const key = `${template.subject}\u0000${template.body}\u0000${template.text ?? ''}`;
      const known = overBudget.get(key);
      if (known !== undefined) throw new RenderBudgetExceeded(known);
      if (spentMs >= batchBudgetMs)
        throw new RenderBudgetExceeded(`the batch's render budget of ${batchBudgetMs} ms is spent (its templates render too slowly)`);
      try {
        return await attempt(template, variables);
      } catch (err) {
        if (!(err instanceof RenderBudgetExceeded)) throw err;
        // Memory is not wall time: a template over it is over it on every turn.
        if (err.over !== 'time') {
          overBudget.set(key, err.message);
          throw err;
        }
      }
      // Over time once: again on a later turn, after whatever stopped the thread has passed.
      await nextTurn();
      try {
        return await attempt(template, variables);
      } catch (err) {
        if (err instanceof RenderBudgetExceeded) overBudget.set(key, err.message);
        throw err;
      }
    },
  };
}
