import { STEP_TYPES, StepRegistry, StepReferences } from '../temporal/steps';
import type { StepPath } from '../db/stepPaths';

/**
 * Where the registry's step types keep references of one kind, as db/ takes them: usage lists
 * and delete guards ask this instead of naming step types in SQL.
 */
export function referencePaths(kind: keyof StepReferences, registry: StepRegistry = STEP_TYPES): StepPath[] {
  return registry.flatMap((def) => (def.references?.[kind] ?? []).map((path) => ({ type: def.type, path: path.split('.') })));
}

/** Event-name references of every type but the trigger (whose name is the workflow's trigger config). */
export function waitPaths(registry: StepRegistry = STEP_TYPES): StepPath[] {
  return referencePaths('eventName', registry).filter((p) => !registry.find((d) => d.type === p.type)?.internal);
}
