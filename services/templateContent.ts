import type { Knex } from 'knex';
import type { EmailDocument } from '../lib/emailDocument';
import type { Brand } from '../lib/brand';
import type { TemplateContent, VariantContent } from '../lib/templateContent';
import { getBrand } from '../db/brands';
import { compileDocument, DocumentInvalid } from './emailCompiler';

/** Content as a request writes it: an HTML body, or (blocks) a document the compiler turns into one. */
export interface VariantInput {
  subject: string;
  body?: string | null;
  document?: EmailDocument | null;
  text?: string | null;
}

export interface ContentInput extends VariantInput {
  editor: 'html' | 'blocks';
  variants?: Record<string, VariantInput> | null;
}

async function compileVariant(editor: ContentInput['editor'], input: VariantInput, brand: Brand, at: string): Promise<VariantContent> {
  const text = input.text ?? null;
  if (editor === 'html') {
    if (input.body == null || input.body === '') throw new DocumentInvalid([{ path: `${at}body`, message: 'Body is required' }]);
    return { subject: input.subject, body: input.body, document: null, text, compiledText: null };
  }
  if (input.document == null) throw new DocumentInvalid([{ path: `${at}document`, message: 'Document is required for a blocks template' }]);
  const compiled = await compileDocument(input.document, brand, `${at}document`);
  const document = input.document as EmailDocument;
  return { subject: input.subject, body: compiled.html, document, text, compiledText: compiled.text };
}

/**
 * Compiles content for storing (a published version or a draft): each blocks document, the
 * default's and every variant's, compiled once under the project's brand. Throws DocumentInvalid
 * naming the place (`document.blocks.3.src`, `variants.fr.document.blocks.0.text`).
 */
export async function compileContent(input: ContentInput, brand: Brand): Promise<TemplateContent> {
  const main = await compileVariant(input.editor, input, brand, '');
  let variants: Record<string, VariantContent> | null = null;
  if (input.variants && Object.keys(input.variants).length) {
    variants = {};
    for (const [locale, v] of Object.entries(input.variants)) variants[locale] = await compileVariant(input.editor, v, brand, `variants.${locale}.`);
  }
  return { ...main, editor: input.editor, variants };
}

/** compileContent under the project's brand. */
export async function compileForProject(knex: Knex, projectId: string, input: ContentInput): Promise<TemplateContent> {
  return compileContent(input, await getBrand(knex, projectId));
}

/** Stored content back to what a request would write (for recompiling a draft at publish, or a restored version). */
export function contentInput(c: TemplateContent): ContentInput {
  const strip = (v: VariantContent): VariantInput =>
    c.editor === 'blocks' ? { subject: v.subject, document: v.document, text: v.text } : { subject: v.subject, body: v.body, text: v.text };
  return {
    ...strip(c),
    editor: c.editor,
    variants: c.variants ? Object.fromEntries(Object.entries(c.variants).map(([k, v]) => [k, strip(v)])) : null,
  };
}
