import type { z } from 'zod';
import { presentMessageContent } from './messageContent';
import type { TemplateContentOut, TemplateOut, TemplateVersionOut } from '../schemas/templates';
import type { TemplateRow, TemplateVersionRow } from '../../db/templates';
import type { TemplateContent, VariantContent } from '../../lib/templateContent';

/** Response shapes of the templates routes, typed by their `*Out` schemas (api/schemas). */

const variantOut = (v: VariantContent) => ({ subject: v.subject, body: v.body, document: v.document ?? null, text: v.text ?? null });

function contentFields(c: TemplateContent) {
  return {
    ...variantOut(c),
    editor: c.editor ?? 'html',
    variants: c.variants ? Object.fromEntries(Object.entries(c.variants).map(([k, v]) => [k, variantOut(v)])) : null,
    preheader: c.document?.settings?.preheader ?? null,
  };
}

export function presentTemplate(row: TemplateRow): z.input<typeof TemplateOut> {
  const {
    preheader: _p,
    subject: _s,
    body: _b,
    text: _t,
    ...versioned
  } = contentFields({
    subject: row.subject,
    body: row.body,
    text: row.text,
    compiledText: row.compiled_text,
    document: row.document,
    editor: row.editor,
    variants: row.variants,
  });
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...presentMessageContent(row),
    ...versioned,
    projectId: row.project_id,
    publishedVersion: row.published_version,
    hasDraft: row.draft !== null,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export function presentContent(c: TemplateContent, isDraft: boolean, updatedAt: Date | null): z.input<typeof TemplateContentOut> {
  return { ...contentFields(c), isDraft, updatedAt: updatedAt ? new Date(updatedAt).toISOString() : null };
}

export function presentVersionMeta(v: TemplateVersionRow) {
  return {
    number: v.number,
    createdBy: v.created_by ? { id: v.created_by, name: v.user_name, email: v.user_email ?? '' } : null,
    createdAt: new Date(v.created_at).toISOString(),
    note: v.note,
  };
}

export function presentVersion(v: TemplateVersionRow): z.input<typeof TemplateVersionOut> {
  return { ...presentVersionMeta(v), ...contentFields(v.content) };
}
