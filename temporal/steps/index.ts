import type { StepModule, StepRegistry } from './types';
import * as trigger from './trigger';
import * as sendEmail from './sendEmail';
import * as delay from './delay';
import * as waitForEvent from './waitForEvent';
import * as condition from './condition';
import * as webhook from './webhook';
import * as updateContact from './updateContact';
import * as exit from './exit';
import * as randomSplit from './randomSplit';
import * as waitUntil from './waitUntil';

/**
 * THE registry of step types: the API's step schemas and the engine's dispatch are both built from
 * this list, so adding a type is one file plus one line here (docs/step-types.md).
 */
export const STEP_TYPES: readonly StepModule[] = [trigger, sendEmail, delay, waitForEvent, condition, webhook, updateContact, exit, randomSplit, waitUntil];

export function findStepType(registry: StepRegistry, type: string): StepModule | undefined {
  return registry.find((s) => s.type === type);
}

/** Types the API lets users add (everything but engine-owned ones such as TRIGGER). */
export function addableStepTypes(registry: StepRegistry = STEP_TYPES): string[] {
  return registry.filter((s) => !s.internal).map((s) => s.type);
}

export * from './types';
// The API's summaries (services/stepSummaries.ts) say an unknown step in the request's language too.
export { summaryWords } from './words';
