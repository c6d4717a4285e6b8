import type { TFunction } from 'i18next';
import type { ResponseOf } from '../../api/client';
import { workflows } from '../../i18n/en/workflows';

type Starter = ResponseOf<'/workflows/starters', 'get'>['data'][number];
type Key = keyof typeof workflows.starters.flows;

/**
 * A starter's name, description and step names in the dashboard's language, from the catalogue's
 * `starters.flows` by the starter's key and each step's key; a starter this dashboard has no words for
 * yet (a newer server) reads as the API's English.
 */
export function starterWords(t: TFunction<'workflows'>, s: Starter): { name: string; description: string; steps: string[] } {
  if (!Object.hasOwn(workflows.starters.flows, s.key)) return { name: s.name, description: s.description, steps: s.steps.map((st) => st.name) };
  const say = t as unknown as (key: string, options?: Record<string, unknown>) => string;
  const base = `starters.flows.${s.key as Key}`;
  return {
    name: say(`${base}.name`),
    description: say(`${base}.description`),
    steps: s.steps.map((st) => say(`${base}.steps.${st.key}`, { defaultValue: st.name })),
  };
}
