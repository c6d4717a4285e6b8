import type { TFunction } from 'i18next';
import { labelOf, singular } from '../../api/workflows';
import { steps } from '../../i18n/en/steps';

/**
 * Step types in the person's language: the catalogue's words (i18n/<lng>/steps.ts) for the built-in
 * types, their groups, fixed branches, config fields and enum values, by the ids the server sends;
 * the server's own words for anything the catalogue does not know, so a plugin step type (one file
 * on the server, test/browser/stepPlugins.test.ts) needs no dashboard entry.
 */
export interface StepWords {
  /** A type's title: the catalogue's, else the server's (`title` from GET /workflows/step-types or a step). */
  title(type: string, serverTitle: string): string;
  description(type: string, serverDescription: string): string;
  /** A palette group by the server's category id. */
  category(category: string): string;
  /** A branch name as shown (`next` → "suite"); a split's own names stay as written. */
  branch(name: string): string;
  /** A branch at the head of a label ("Next leads to", "Gold leads to"). */
  branchLabel(name: string): string;
  /** A config field's label by its property name ("templateId" → "Template id"). */
  field(key: string): string;
  /** One row of a list field by the list's property name, in a sentence ("branch"). */
  item(key: string, label: string): string;
  /** An enum value of a config. */
  value(value: string): string;
  /**
   * A step's name: a step still named by its type's title (the server names the trigger "Trigger",
   * a new step starts with its type's title) is named in the person's language; a name someone gave it stays.
   */
  stepName(step: { name: string; title: string; type: string }): string;
}

const capitalised = (text: string) => text.charAt(0).toLocaleUpperCase() + text.slice(1);

const known = <T extends object>(catalogue: T, key: string): key is Extract<keyof T, string> => Object.hasOwn(catalogue, key);

export function stepWords(t: TFunction<'steps'>): StepWords {
  const title = (type: string, serverTitle: string) => (known(steps.types, type) ? t(`types.${type}.title`) : serverTitle);
  return {
    title,
    description: (type, serverDescription) => (known(steps.types, type) ? t(`types.${type}.description`) : serverDescription),
    category: (category) => (known(steps.categories, category) ? t(`categories.${category}`) : category),
    branch: (name) => (known(steps.branches, name) ? t(`branches.${name}`) : name),
    branchLabel: (name) => (known(steps.branches, name) ? capitalised(t(`branches.${name}`)) : labelOf(name)),
    field: (key) => (known(steps.fields, key) ? t(`fields.${key}`) : labelOf(key)),
    item: (key, label) => (known(steps.items, key) ? t(`items.${key}`) : singular(label).toLowerCase()),
    value: (value) => (known(steps.values, value) ? t(`values.${value}`) : value),
    stepName: (step) => (step.name === step.title ? title(step.type, step.title) : step.name),
  };
}
