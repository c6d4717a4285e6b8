import type { z } from 'zod';
import type { FormOut } from '../schemas/forms';
import type { FormRow } from '../../db/forms';
import type { Config } from '../../lib/config';
import { formMarkup } from '../../lib/formMarkup';

/** The hosted page's absolute URL, on APP_URL like the subscription links (lib/unsubscribe.ts). */
export const formUrl = (config: Pick<Config, 'appUrl'>, id: string) => `${config.appUrl}/f/${id}`;

/** The snippet for another site: the same form, posting to the hosted page, its honeypot hidden by a style attribute. */
export const embedHtml = (config: Pick<Config, 'appUrl'>, row: FormRow) =>
  formMarkup({ action: formUrl(config, row.id), fields: row.fields, honeypot: 'inline' });

export function presentForm(config: Pick<Config, 'appUrl'>, row: FormRow): z.input<typeof FormOut> {
  return {
    id: row.id,
    name: row.name,
    fields: row.fields.map((f) => ({ key: f.key, label: f.label, type: f.type, required: f.required, ...(f.options ? { options: f.options } : {}) })),
    topics: row.topics,
    doubleOptIn: row.double_opt_in,
    successMessage: row.success_message,
    redirectUrl: row.redirect_url,
    publicUrl: formUrl(config, row.id),
    embedHtml: embedHtml(config, row),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
