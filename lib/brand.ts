import { z } from 'zod';

/**
 * A project's brand kit (GET/PUT /brand): the look new block documents start from, and the fallback
 * for every setting a document leaves unset at compile time (services/emailCompiler.ts), so changing
 * the brand changes those documents on their next compile.
 */
const colour = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'Colours are written like #1a2b3c');

export const Brand = z.object({
  logoUrl: z
    .string()
    .max(2048)
    .refine((s) => s === '' || /^https:\/\//i.test(s), 'The logo is an https:// URL')
    .nullable()
    .describe('An https URL (an upload from POST /uploads/images); null: no logo'),
  colors: z.object({
    background: colour.describe('Around the content'),
    content: colour.describe('Behind the content'),
    text: colour,
    accent: colour.describe('Buttons and links'),
  }),
  fontFamily: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w\s,'"-]*$/, 'A font stack holds names, spaces, commas and quotes only'),
  footer: z.object({
    companyName: z.string().max(200),
    address: z.string().max(500).describe('The postal address marketing mail must carry'),
  }),
});
export type Brand = z.infer<typeof Brand>;

/**
 * The brand of a project that never set one. No pure #ffffff on #000000 pair: mail clients that
 * invert colours in dark mode turn such pairs harsh, near-neutral tones survive inversion better.
 */
export const DEFAULT_BRAND: Brand = {
  logoUrl: null,
  colors: { background: '#f4f5f7', content: '#ffffff', text: '#1f2933', accent: '#2563eb' },
  fontFamily: 'Helvetica, Arial, sans-serif',
  footer: { companyName: '', address: '' },
};
