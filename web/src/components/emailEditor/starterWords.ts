import type { TFunction } from 'i18next';
import type { Starter } from '../../api/emailEditor';
import { editor } from '../../i18n/en/editor';

type Id = keyof typeof editor.starters.items;

/**
 * A template starter's name and description in the dashboard's language (the catalogue's
 * `starters.items`, by the starter's id); a starter this dashboard has no words for yet (a newer
 * server) reads as the API's English.
 */
export function templateStarterWords(t: TFunction<'editor'>, s: Pick<Starter, 'id' | 'name' | 'description'>): { name: string; description: string } {
  if (!Object.hasOwn(editor.starters.items, s.id)) return { name: s.name, description: s.description };
  const id = s.id as Id;
  return { name: t(`starters.items.${id}.name`), description: t(`starters.items.${id}.description`) };
}
