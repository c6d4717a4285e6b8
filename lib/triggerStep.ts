/**
 * The type name of the step every workflow starts at. Part of the workflow model rather than a
 * plugin: db/ creates it with its workflow and keeps it equal to the trigger config, and the
 * engine starts each execution there (temporal/steps/trigger.ts). Safe in the workflow sandbox.
 */
export const TRIGGER_STEP_TYPE = 'TRIGGER';
