import { z } from 'zod';

/**
 * A block email: the one schema shared by the API (request validation, /openapi.json), the MJML
 * compiler (services/emailCompiler) and the dashboard's editor (through the generated web types).
 *
 * Every text a block holds is a Liquid source: the compiler leaves `{{ … }}` intact and Liquid renders
 * it per recipient, exactly as for an HTML template. Settings that land in attributes (colours, sizes,
 * URLs) are constrained here so a document can never smuggle markup through them; only the `html`
 * block carries markup, on purpose, for power users.
 *
 * `version` is the document format's version: a later format adds a literal and a converter, so stored
 * documents never need a data migration to keep compiling.
 */
export const DOCUMENT_VERSION = 1;

const colour = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'Colours are written like #1a2b3c')
  .describe('A hex colour, #rgb or #rrggbb');

/** Links may be Liquid (`{{ unsubscribeUrl }}`) or absolute http(s)/mailto/tel URLs. */
const link = z
  .string()
  .max(2048, 'Links must be at most 2048 characters')
  .refine((s) => s === '' || /^(?:https?:\/\/|mailto:|tel:|\{\{)/i.test(s.trim()), 'Links start with https://, mailto:, tel: or a {{ variable }}')
  .describe('An absolute URL (https://…, mailto:, tel:) or a Liquid variable; empty while unset');

const align = z.enum(['left', 'center', 'right']);
const padding = z.number().int().min(0).max(80).describe('Padding in pixels, top and bottom');

/** Settings every block has. */
const base = {
  id: z.string().min(1).max(64).describe('Stable within the document: the editor selects, moves and lints blocks by it'),
  padding: padding.optional(),
  background: colour.optional(),
};

export const HeadingBlock = z
  .object({
    ...base,
    type: z.literal('heading'),
    text: z.string().max(500),
    level: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1),
    align: align.optional(),
    color: colour.optional(),
  })
  .meta({ id: 'HeadingBlock' });

/**
 * Rich text as a small, safe subset of HTML: paragraphs, line breaks, bold, italic, links and lists.
 * The compiler sanitises it to that subset, so pasted markup cannot break the email's layout.
 */
export const TextBlock = z
  .object({
    ...base,
    type: z.literal('text'),
    html: z.string().max(50_000).describe('Paragraphs, <br>, <strong>/<b>, <em>/<i>, <a href>, <ul>/<ol>/<li>; anything else is dropped'),
    align: align.optional(),
    color: colour.optional(),
    fontSize: z.number().int().min(10).max(40).optional(),
  })
  .meta({ id: 'TextBlock' });

export const ButtonBlock = z
  .object({
    ...base,
    type: z.literal('button'),
    text: z.string().max(200),
    href: link,
    align: align.optional(),
    color: colour.optional().describe('Button colour; defaults to the brand accent'),
    textColor: colour.optional(),
  })
  .meta({ id: 'ButtonBlock' });

export const ImageBlock = z
  .object({
    ...base,
    type: z.literal('image'),
    src: link.describe('The image URL (an upload from POST /uploads/images, or any https URL)'),
    alt: z.string().max(500).describe('Required for sending: read aloud and shown when images are off'),
    href: link.optional(),
    width: z.number().int().min(20).max(600).optional().describe('Pixels; the image never grows past the content width'),
    align: align.optional(),
  })
  .meta({ id: 'ImageBlock' });

export const DividerBlock = z
  .object({ ...base, type: z.literal('divider'), color: colour.optional(), thickness: z.number().int().min(1).max(10).optional() })
  .meta({ id: 'DividerBlock' });

export const SpacerBlock = z.object({ ...base, type: z.literal('spacer'), height: z.number().int().min(4).max(200).default(24) }).meta({ id: 'SpacerBlock' });

export const SOCIAL_NETWORKS = ['facebook', 'x', 'instagram', 'linkedin', 'youtube', 'github', 'mastodon', 'web'] as const;
export const SocialBlock = z
  .object({
    ...base,
    type: z.literal('social'),
    links: z.array(z.object({ network: z.enum(SOCIAL_NETWORKS), href: link })).max(8),
    align: align.optional(),
  })
  .meta({ id: 'SocialBlock' });

export const HtmlBlock = z
  .object({ ...base, type: z.literal('html'), html: z.string().max(100_000).describe('Raw HTML, kept as written') })
  .meta({ id: 'HtmlBlock' });

/** The brand's footer: company, postal address and the subscription links (CAN-SPAM, GDPR). */
export const FooterBlock = z
  .object({
    ...base,
    type: z.literal('footer'),
    text: z.string().max(2000).optional().describe('Extra words above the address; the brand footer when absent'),
    viewInBrowser: z.boolean().optional().describe('The "View in browser" link ({{ viewInBrowserUrl }}) before the subscription links; default true'),
    align: align.optional(),
  })
  .meta({ id: 'FooterBlock' });

/** Blocks a column may hold: everything except nested columns. */
export const LeafBlock = z
  .discriminatedUnion('type', [HeadingBlock, TextBlock, ButtonBlock, ImageBlock, DividerBlock, SpacerBlock, SocialBlock, HtmlBlock, FooterBlock])
  .meta({ id: 'EmailLeafBlock' });

/** Two or three columns side by side on desktop, stacked on a phone. */
export const ColumnsBlock = z
  .object({
    ...base,
    type: z.literal('columns'),
    columns: z
      .array(z.object({ blocks: z.array(LeafBlock).max(20) }))
      .min(2, 'Columns hold 2 or 3 columns')
      .max(3, 'Columns hold 2 or 3 columns'),
  })
  .meta({ id: 'ColumnsBlock' });

export const Block = z
  .discriminatedUnion('type', [HeadingBlock, TextBlock, ButtonBlock, ImageBlock, DividerBlock, SpacerBlock, SocialBlock, HtmlBlock, FooterBlock, ColumnsBlock])
  .meta({ id: 'EmailBlock' });

/** Document-wide settings; anything unset falls back to the project's brand. */
export const DocumentSettings = z
  .object({
    preheader: z.string().max(250).optional().describe('The preview line inboxes show after the subject'),
    background: colour.optional(),
    contentBackground: colour.optional(),
    textColor: colour.optional(),
    accentColor: colour.optional(),
    fontFamily: z
      .string()
      .max(200)
      .regex(/^[\w\s,'"-]*$/, 'A font stack holds names, spaces, commas and quotes only')
      .optional(),
    width: z.number().int().min(320).max(800).optional(),
  })
  .meta({ id: 'EmailDocumentSettings' });

export const EmailDocument = z
  .object({
    version: z.literal(DOCUMENT_VERSION),
    settings: DocumentSettings.default({}),
    blocks: z.array(Block).max(200, 'A document holds at most 200 blocks'),
  })
  .meta({ id: 'EmailDocument' });

export type EmailDocument = z.infer<typeof EmailDocument>;
export type Block = z.infer<typeof Block>;
export type LeafBlock = z.infer<typeof LeafBlock>;
export type BlockType = Block['type'];
export const BLOCK_TYPES = [
  'heading',
  'text',
  'button',
  'image',
  'divider',
  'spacer',
  'columns',
  'social',
  'html',
  'footer',
] as const satisfies readonly BlockType[];
