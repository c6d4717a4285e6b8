import type { z } from 'zod';
import { presentMessageContent } from './messageContent';
import type { TemplateOut } from '../schemas/templates';
import type { TemplateRow } from '../../db/templates';

/** Response shapes of the templates routes, typed by their `*Out` schemas (api/schemas). */

export function presentTemplate(row: TemplateRow): z.input<typeof TemplateOut> {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    ...presentMessageContent(row),
    projectId: row.project_id,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
