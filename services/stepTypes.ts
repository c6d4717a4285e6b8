import { z } from 'zod';
import { STEP_FORMATS, STEP_PICKERS, STEP_TYPES, StepCategory, StepModule, StepPicker, StepReferences, StepRegistry } from '../temporal/steps';
import { stepConfigSchema } from './workflowGraphs';

/**
 * What a client needs to offer the registry's step types (GET /workflows/step-types): their
 * branches, and their config schema as JSON Schema, generated from the zod schema the API validates
 * with, so a form built from it asks for what the API accepts. Nothing here knows a step type.
 */

/** Fixed names, or `derived` from the step's config (a weighted split names one branch per weight). */
export interface BranchList {
  derived: boolean;
  /** The fixed names; empty when derived (a step's own list is `branches` of its StepOut). */
  names: string[];
}

export interface StepTypeDescription {
  type: string;
  title: string;
  description: string;
  category: StepCategory;
  icon: string;
  /** Engine-owned (TRIGGER): one per workflow, not addable. */
  internal: boolean;
  branches: BranchList;
  requiredBranches: BranchList;
  configSchema: Record<string, unknown>;
  docs: { config: string; notes: string } | null;
}

type Json = Record<string, unknown>;

/** The reference kinds whose fields get a format (the dashboard's pickers). */
const REFERENCE_FORMATS: Partial<Record<keyof StepReferences, string>> = {
  template: STEP_FORMATS.templateId,
  eventName: STEP_FORMATS.eventName,
};

/** The reference kinds whose fields get a picker (a schema's own `.meta({ picker })` needs none). */
const REFERENCE_PICKERS: Partial<Record<keyof StepReferences, StepPicker>> = {
  template: STEP_PICKERS.template,
  eventName: STEP_PICKERS.event,
  topic: STEP_PICKERS.topic,
};

/** What people call a step type: its `title`, else its type. */
export const stepTitle = (def: StepModule): string => def.title ?? def.type;

const descriptions = new WeakMap<StepModule, StepTypeDescription>();

export function describeStepTypes(registry: StepRegistry = STEP_TYPES): StepTypeDescription[] {
  return registry.map(describeStepType);
}

export function describeStepType(def: StepModule): StepTypeDescription {
  let d = descriptions.get(def);
  if (!d) descriptions.set(def, (d = build(def)));
  return d;
}

function build(def: StepModule): StepTypeDescription {
  return {
    type: def.type,
    title: stepTitle(def),
    description: def.description ?? '',
    category: def.category ?? 'Logic',
    icon: def.icon ?? 'step',
    internal: def.internal === true,
    branches: branchList(def.branches),
    requiredBranches: branchList(def.requiredBranches ?? []),
    configSchema: configJsonSchema(def),
    docs: def.docs ?? null,
  };
}

const branchList = (list: StepModule['branches']): BranchList =>
  typeof list === 'function' ? { derived: true, names: [] } : { derived: false, names: [...list] };

/**
 * The input side of the config schema (a field with a default is optional), as JSON Schema 2020-12.
 * Refinements (a split's unique names, a duration's ceiling) have no JSON Schema form: the API
 * still applies them on save, and its 422 names the field.
 */
export function configJsonSchema(def: StepModule): Json {
  const schema = z.toJSONSchema(stepConfigSchema(def), { io: 'input', unrepresentable: 'any' }) as Json;
  for (const [kind, format] of Object.entries(REFERENCE_FORMATS) as [keyof StepReferences, string][]) {
    for (const path of def.references?.[kind] ?? []) setFormat(schema, path.split('.'), 'format', format);
  }
  for (const [kind, picker] of Object.entries(REFERENCE_PICKERS) as [keyof StepReferences, string][]) {
    for (const path of def.references?.[kind] ?? []) setFormat(schema, path.split('.'), 'picker', picker);
  }
  return schema;
}

/** Gives the string field at `path` (in every variant of a union) the format or picker. */
function setFormat(schema: Json, path: string[], key: 'format' | 'picker', value: string): void {
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    const variants = schema[k];
    if (Array.isArray(variants)) for (const v of variants) setFormat(v as Json, path, key, value);
  }
  if (path.length === 0 || (path.length === 1 && path[0] === '$')) {
    if (schema.type === 'string') schema[key] = value;
    return;
  }
  const child = (schema.properties as Record<string, Json> | undefined)?.[path[0]];
  if (child) setFormat(child, path.slice(1), key, value);
}
