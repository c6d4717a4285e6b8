import type { ResponseOf } from '../../api/client';
import type { ContentIn, Editor, EmailDocument, TemplateContent, VariantContent } from '../../api/emailEditor';
import type { TemplateType } from '../../api/templates';

export type Template = ResponseOf<'/templates/{id}', 'get'>;

/** The template's settings, which are not versioned: PATCH /templates/:id changes them at once. */
export interface Meta {
  name: string;
  description: string;
  from: string;
  fromName: string;
  replyTo: string;
  type: TemplateType;
}

/** The versioned content the editor edits: the draft (PUT /templates/:id/draft), published by "Publish". */
export interface Draft extends Meta {
  editor: Editor;
  subject: string;
  body: string;
  document: EmailDocument | null;
  text: string;
  variants: Record<string, VariantContent>;
}

/** A new template's draft; its body is the dashboard's, in the person's language (starterWords.ts draftBody). */
export const blankDraft = (body: string): Draft => ({
  name: '',
  description: '',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'MARKETING',
  editor: 'html',
  subject: '',
  body,
  document: null,
  text: '',
  variants: {},
});

/** The template's fields as the API may answer them (the editor's fields are new: older answers lack them). */
type Loose = Partial<TemplateContent> & { description?: string | null; fromName?: string | null; replyTo?: string | null };

export function draftOf(t: Template, content?: TemplateContent | null): Draft {
  const c = (content ?? t) as Loose;
  const loose = t as unknown as Loose;
  return {
    name: t.name,
    description: loose.description ?? '',
    from: t.from,
    fromName: loose.fromName ?? '',
    replyTo: loose.replyTo ?? '',
    type: t.type,
    editor: c.editor ?? 'html',
    subject: c.subject ?? t.subject,
    body: c.body ?? t.body,
    document: c.document ?? null,
    text: c.text ?? '',
    variants: c.variants ?? {},
  };
}

const orNull = (s: string) => (s.trim() ? s : null);

export const metaOf = (d: Meta) => ({
  name: d.name,
  description: orNull(d.description),
  from: d.from,
  fromName: orNull(d.fromName),
  replyTo: orNull(d.replyTo),
  type: d.type,
});

/** The content as the API takes it: a blocks template sends its document and no body. */
export function contentOf(d: Draft): ContentIn {
  const text = d.text ? d.text : null;
  return d.editor === 'blocks'
    ? { subject: d.subject, editor: 'blocks', document: d.document, text, variants: d.variants }
    : { subject: d.subject, editor: 'html', body: d.body, text, variants: d.variants };
}

/** POST /templates: settings and content at once (published as the first version). */
export const createBodyOf = (d: Draft) => ({ ...metaOf(d), ...contentOf(d) });

/** The settings that differ from the stored template: a PATCH sends only those (an unchanged sender is not checked again). */
export function metaChanges(d: Draft, t: Template): Partial<ReturnType<typeof metaOf>> {
  const now = metaOf(d);
  const before = metaOf(draftOf(t));
  return Object.fromEntries(Object.entries(now).filter(([k, v]) => v !== before[k as keyof typeof before]));
}

/** The subject, body, document and text of one language ('' is the default). */
export interface Localised {
  subject: string;
  body: string;
  document: EmailDocument | null;
  text: string;
}

export function localised(d: Draft, locale: string): Localised {
  if (!locale) return { subject: d.subject, body: d.body, document: d.document, text: d.text };
  const v = d.variants[locale] ?? { subject: '' };
  return { subject: v.subject, body: v.body ?? '', document: v.document ?? null, text: v.text ?? '' };
}

export function withLocalised(d: Draft, locale: string, patch: Partial<Localised>): Draft {
  if (!locale) return { ...d, ...patch };
  const next = { ...localised(d, locale), ...patch };
  const variant: VariantContent =
    d.editor === 'blocks'
      ? { subject: next.subject, document: next.document, text: next.text || null }
      : { subject: next.subject, body: next.body, text: next.text || null };
  return { ...d, variants: { ...d.variants, [locale]: variant } };
}
