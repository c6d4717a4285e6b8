import type { Knex } from 'knex';
import { referenceNames } from '../db/referenceNames';
import { STEP_TYPES, StepModule, StepNames, StepRegistry, SummaryLanguage, findStepType, summaryWords } from '../temporal/steps';
import { stepConfigSchema } from './workflowGraphs';
import { stepTitle } from './stepTypes';

/**
 * A node's words (docs/step-types.md, "summary"): each type's `summary(config, names, lang)` with the
 * names of the templates and topics its config refers to looked up here, so the dashboard shows
 * "Send “Welcome”" (« Envoyer « Welcome » » to a French request) without knowing any step type or
 * fetching the template.
 */

type StepLike = { type: string; config: unknown };

/** The values at a reference path of a config (`templateId`, `$`); strings only. */
function valuesAt(config: unknown, path: string): string[] {
  let at: unknown = config;
  if (path !== '$') for (const key of path.split('.')) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  return typeof at === 'string' ? [at] : [];
}

/** The names every step of `steps` refers to, in one query per kind. */
export async function stepNames(knex: Knex, projectId: string, steps: readonly StepLike[], registry: StepRegistry = STEP_TYPES): Promise<StepNames> {
  const template: string[] = [];
  const topic: string[] = [];
  for (const step of steps) {
    const refs = findStepType(registry, step.type)?.references;
    for (const path of refs?.template ?? []) template.push(...valuesAt(step.config, path));
    for (const path of refs?.topic ?? []) topic.push(...valuesAt(step.config, path));
  }
  if (!template.length && !topic.length) return {};
  const names = await referenceNames(knex, projectId, { template, topic });
  return { template: names.template, topic: names.topic };
}

/**
 * The step's summary in `lang` (a type that ignores it answers English); its title when the type has
 * none, or its config no longer parses.
 */
export function stepSummary(def: StepModule | undefined, config: unknown, names: StepNames, lang: SummaryLanguage = 'en'): string {
  if (!def) return summaryWords(lang).unknownStep;
  if (!def.summary) return stepTitle(def);
  const parsed = stepConfigSchema(def).safeParse(config);
  if (!parsed.success) return stepTitle(def);
  try {
    return def.summary(parsed.data, names, lang);
  } catch {
    // A plugin's summary must never take the workflow's page down.
    return stepTitle(def);
  }
}
