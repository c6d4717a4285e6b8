import { STEP_TYPES, StepRegistry, StepReferences } from '../temporal/steps';

/** The markers around the generated step table in docs/workflows.md. */
export const STEP_TABLE_BEGIN = '<!-- step-table:begin (generated from temporal/steps by `npm run docs:steps`; do not edit) -->';
export const STEP_TABLE_END = '<!-- step-table:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const REFERENCE_NAMES: Record<keyof StepReferences, string> = {
  template: 'template',
  eventName: 'event name',
  contactFields: 'contact fields',
  topic: 'topic',
};

/** The step table of the addable types, in registry order. */
export function stepTable(registry: StepRegistry = STEP_TYPES): string {
  const rows = registry
    .filter((def) => !def.internal)
    .map((def) => {
      const branches = typeof def.branches === 'function' ? 'named by its config' : def.branches.length ? def.branches.join(', ') : '—';
      const refs = Object.entries(def.references ?? {}).flatMap(([kind, paths]) =>
        (paths as readonly string[]).map((p) => `${REFERENCE_NAMES[kind as keyof StepReferences]} (\`${p}\`)`),
      );
      return `| \`${def.type}\` | ${cell(def.docs?.config ?? '')} | ${branches} | ${refs.join(', ') || '—'} | ${cell(def.docs?.notes ?? '')} |`;
    });
  return ['| Type | Config | Branches | References | Notes |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** `doc` with the text between the markers replaced by the table; throws when the markers are missing. */
export function withStepTable(doc: string, registry: StepRegistry = STEP_TYPES): string {
  const begin = doc.indexOf(STEP_TABLE_BEGIN);
  const end = doc.indexOf(STEP_TABLE_END);
  if (begin < 0 || end < begin) throw new Error('docs/workflows.md has no step-table markers');
  return `${doc.slice(0, begin + STEP_TABLE_BEGIN.length)}\n${stepTable(registry)}\n${doc.slice(end)}`;
}
