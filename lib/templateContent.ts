import type { EmailDocument } from './emailDocument';

/**
 * A template's content as one version holds it (the published one in the templates row, the draft,
 * every entry of template_versions): what the author wrote plus what the compiler made of it.
 * `body` of a blocks template is its compiled HTML; `text` is the author's own text part (null:
 * `compiledText` for blocks, else generated from the rendered body per recipient as before).
 */
export interface VariantContent {
  subject: string;
  body: string;
  document: EmailDocument | null;
  text: string | null;
  compiledText: string | null;
}

export interface TemplateContent extends VariantContent {
  editor: 'html' | 'blocks';
  variants: Record<string, VariantContent> | null;
}

/** Locales as variants are keyed: a language, optionally a region or script (`en`, `fr`, `pt-BR`, `zh-Hant`). */
export const LOCALE = /^[a-z]{2,3}(?:-(?:[A-Z]{2}|[0-9]{3}|[A-Z][a-z]{3}))?$/;

/** The contact's locale as `data.locale` holds it (any case, `_` or `-`), normalised; null when unusable. */
export function normaliseLocale(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const [lang, region] = value.trim().replace(/_/g, '-').split('-');
  if (!lang || !/^[a-zA-Z]{2,3}$/.test(lang)) return null;
  if (!region) return lang.toLowerCase();
  const r = region.length === 4 ? region[0].toUpperCase() + region.slice(1).toLowerCase() : region.toUpperCase();
  return `${lang.toLowerCase()}-${r}`;
}

/**
 * Which variant a contact with `locale` gets: the exact locale, then its language alone
 * (`pt-BR` → `pt`), then none (null: the default content).
 */
export function chooseVariant(available: readonly string[], locale: unknown): string | null {
  const wanted = normaliseLocale(locale);
  if (!wanted) return null;
  if (available.includes(wanted)) return wanted;
  const language = wanted.split('-')[0];
  return available.includes(language) ? language : null;
}

/** What a send renders: subject, HTML body and the text part's source (null: generated from the body). */
export interface SendableContent {
  subject: string;
  body: string;
  text: string | null;
  /** The variant's locale, or null for the default content. */
  locale: string | null;
}

/**
 * THE answer to "what does this template send to a contact with this locale": the published
 * content's variant for the locale, else the default content (lib/templateContent chooseVariant).
 * Every sender (POST /v1/send, the SEND_EMAIL step, the double opt-in confirmation) goes through it.
 */
export function sendableContent(content: TemplateContent, locale: unknown): SendableContent {
  const chosen = content.variants ? chooseVariant(Object.keys(content.variants), locale) : null;
  const c = chosen ? content.variants![chosen] : content;
  return { subject: c.subject, body: c.body, text: c.text ?? c.compiledText, locale: chosen };
}
