import type { z } from 'zod';
import type { TopicOut } from '../schemas/topics';
import type { TopicRow } from '../../db/topics';

export function presentTopic(row: TopicRow): z.input<typeof TopicOut> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    defaultSubscribed: row.default_subscribed,
    public: row.public,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
