import type { z } from 'zod';
import type { EventPayload } from '../contract';
import { eventNameProblem } from '../../lib/reservedEvents';
import type { SummaryLanguage } from './summaryWords/types';

export type { EventPayload, SummaryLanguage };

/**
 * The contract of a workflow step type (docs/step-types.md). Step files run inside
 * the Temporal workflow sandbox, so they import only @temporalio/workflow and TYPES (of zod, of the
 * activities); anything that needs I/O is an activity, and checks that need the database or other
 * Node modules reach the step through the `ConfigChecks` the API hands in.
 *
 * A config schema is a function of zod rather than a schema: the sandbox evaluates every module a
 * workflow imports once per workflow run, and zod's own setup costs megabytes each time, which ten
 * thousand waiting executions cannot afford. The API (and the starter, see services/workflowGraphs
 * `stepConfigSchema`) calls it with zod; the workflow never does.
 */

export type Zod = typeof z;
/** The parsed config of a step type, from its schema function. */
export type ConfigOf<F extends (zod: Zod) => z.ZodType> = z.output<ReturnType<F>>;

/** A branch name: one of the names its step declares (fixed, or derived from its config). */
export type Branch = string;

const DURATION_UNITS = ['minutes', 'hours', 'days', 'weeks'] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];

export const UNIT_MS: Record<DurationUnit, number> = {
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
};

export interface StepContext {
  executionId: string;
  projectId: string;
  workflowId: string;
  contactId: string;
  stepId: string;
  stepName: string;
  /** The step's sequence number in its execution: with executionId, the idempotency key of its side effects. */
  seq: number;
  /**
   * What steps returned as `context` during this run, without personal data: the full context (the
   * caller's variables, `event` with its data, `webhook` answers) stays in the execution row, and
   * activities that render read it there by `executionId` (histories carry ids only: temporal/summaries.ts).
   */
  context: Record<string, unknown>;
  /**
   * Set on a test run (POST /workflows/:id/test): a step with outside effects other than email
   * (its emails are redirected to the tester by the SEND_EMAIL activity) holds back unless allowed.
   * Waits are already shortened by `duration`, `sleep` and `waitForEvent`.
   */
  test?: { callWebhooks: boolean };
  /** A configured duration in milliseconds, after the execution's time scale (and a test run's cap). */
  duration(amount: number, unit: DurationUnit): number;
  /** Durable timer; the execution shows WAITING meanwhile, with `reason` as its `waitingReason` when given. */
  sleep(ms: number, reason?: string): Promise<void>;
  /**
   * Parks until an event of that name reaches this contact (routed by `routeEvent`), or until the
   * timeout; null on timeout. The execution shows WAITING meanwhile.
   */
  waitForEvent(eventName: string, timeoutMs?: number): Promise<EventPayload | null>;
}

export type StepOutcome =
  /** Follow `branch` (no transition there ends the execution as COMPLETED). */
  | { branch: Branch; status?: 'COMPLETED' | 'SKIPPED'; output?: unknown; context?: Record<string, unknown> }
  /** End the execution here. */
  | { end: 'EXITED' | 'COMPLETED'; output?: unknown };

/**
 * Checks a step config needs beyond its zod shape, answered by the API (which owns the database,
 * Liquid and the filter compiler). Each records a problem at `path` (relative to the config).
 */
export interface ConfigChecks {
  /** Liquid source that must parse. */
  liquid(path: string, source: string): void;
  /** A template id that must name a template of the workflow's project. */
  template(path: string, templateId: string): Promise<void>;
  /** A sender address whose domain must be verified for the project. */
  sender(path: string, email: string): Promise<void>;
  /** A contact `data` patch under the contact data rules. */
  contactData(path: string, data: Record<string, unknown>): void;
  /** A filter tree (db/filters/model.ts). */
  filterTree(path: string, tree: unknown): Promise<void>;
  /** A topic id or slug of the workflow's project (db/topics). */
  topic(path: string, key: string): Promise<void>;
}

/** The palette's groups (GET /workflows/step-types `category`). */
export const STEP_CATEGORIES = ['Messages', 'Timing', 'Logic', 'Data'] as const;
export type StepCategory = (typeof STEP_CATEGORIES)[number];

/**
 * The names of what configs refer to, looked up by the server for a step's `summary`: by reference
 * kind (the type's `references`), then by the id or key the config holds (`names.template?.[id]`).
 * A name not found is absent: the summary says something without it.
 */
export type StepNames = { [K in keyof StepReferences]?: Record<string, string> };

/** What one step file exports. */
export interface StepModule<C = any> {
  type: string;
  /** What people call the step ("Send email"): the palette's and the node's heading. Falls back to `type`. */
  title?: string;
  /** One sentence for people, shown in the palette (developer notes belong in `docs`). */
  description?: string;
  /** The palette group; `Logic` when absent. */
  category?: StepCategory;
  /** An icon name the dashboard maps to an icon (an unknown name shows a generic one). */
  icon?: string;
  /**
   * The words the step's node shows ("Wait 2 days", "Send “Welcome”"), from its parsed config and
   * the names the server looked up for its references. Node side only (the API), never in the sandbox.
   * `lang` is the language of the request (its Accept-Language: 'en', 'fr' or 'de'); a type may ignore
   * it and answer in English (plugins written before it keep working), and the built-in ones answer
   * in it (temporal/steps/words.ts, summaryWords/).
   */
  summary?(config: C, names: StepNames, lang?: SummaryLanguage): string;
  /** The config schema, given zod: validates configs on the API and when an execution starts. */
  config: (zod: Zod) => z.ZodType<C>;
  /**
   * Branches the step may take: a transition from it may only use these. A fixed list, or derived
   * from the step's parsed config (a weighted split names one branch per weight). Called on the
   * Node side only (the API's checks), never in the sandbox.
   */
  branches: readonly Branch[] | ((config: C) => readonly Branch[]);
  /** Branches that must be connected before the workflow can be enabled (fixed, or derived from the config). */
  requiredBranches?: readonly Branch[] | ((config: C) => readonly Branch[]);
  /**
   * What the step's config refers to, for usage lists and delete guards (db/references asks these
   * through services/stepReferences): JSON paths into the stored config. `$` is the config itself.
   */
  references?: StepReferences;
  /** The row of the step table in docs/workflows.md (`npm run docs:steps`): its config in short, and what it does. */
  docs?: { config: string; notes: string };
  /**
   * The step's first durable call is always `ctx.sleep` or `ctx.waitForEvent`, with no activity
   * before it: the engine then writes the step's start together with that wait (one write and one
   * local activity fewer per waiting step). Leave it out when the step may call anything first: its
   * activities may read the step's row, which would not exist yet.
   */
  startsWithWait?: boolean;
  /** Engine-owned types (TRIGGER) exist once per workflow and cannot be added through the API. */
  internal?: boolean;
  check?(config: C, checks: ConfigChecks): Promise<void>;
  run(config: C, ctx: StepContext): Promise<StepOutcome>;
}

/** A list of step types: the engine's (temporal/steps/index.ts STEP_TYPES), or a test's. */
export type StepRegistry = readonly StepModule[];

/**
 * Each entry is a JSON path into the stored config (`templateId`, `data`), read by Postgres as
 * `config #>> '{templateId}'`: the guards ask the database for every step of every type that
 * declares the kind, so a new type that references a template is seen without any SQL change.
 */
export interface StepReferences {
  /** A template id (a string). */
  template?: readonly string[];
  /** An event name (a string). */
  eventName?: readonly string[];
  /** An object whose top-level keys are contact data fields. */
  contactFields?: readonly string[];
  /** A topic, by id or slug (a string). */
  topic?: readonly string[];
}

// ───────────────────────────── shared config pieces ─────────────────────────────

/**
 * The JSON Schema `format`s a config field is described with in GET /workflows/step-types, beyond
 * the standard ones (`uuid`, `email`, `uri`): the dashboard picks a field widget by them. Durations
 * and filter trees carry theirs in the shared schemas below; template ids and event names get
 * theirs from the type's `references` (services/stepTypes.ts).
 */
export const STEP_FORMATS = {
  templateId: 'template-id',
  eventName: 'event-name',
  filterTree: 'filter-tree',
  duration: 'duration',
} as const;

/**
 * Pickers a config field can ask the dashboard for, as `.meta({ picker: STEP_PICKERS.topic })` on
 * its zod schema (carried as `picker` in the JSON Schema of GET /workflows/step-types). Fields named
 * in a type's `references` get theirs without it (services/stepTypes.ts). The dashboard offers a
 * searchable list of the project's things of that kind, never an id to type.
 */
export const STEP_PICKERS = {
  template: 'template',
  topic: 'topic',
  segment: 'segment',
  field: 'field',
  event: 'event',
} as const;
export type StepPicker = (typeof STEP_PICKERS)[keyof typeof STEP_PICKERS];

/**
 * Trigger and WAIT_FOR_EVENT names: any event name, emitted ones (`email.opened`, `segment.x.entry`)
 * included, under the one rule of lib/reservedEvents.ts (no invisible characters, no lookalike of
 * an emitted name).
 */
export const eventNameSchema = (z: Zod) =>
  z
    .string()
    .trim()
    .min(1, 'event name is required')
    .max(255, 'event name must be at most 255 characters')
    .superRefine((name, ctx) => {
      const problem = eventNameProblem(name, 'listen');
      if (problem) ctx.addIssue({ code: 'custom', message: problem.message, params: { code: problem.code } });
    });

/** About ten years: far enough for any automation, near enough for a Temporal timer. */
const MAX_DURATION_MS = 3650 * UNIT_MS.days;

export const durationSchema = (z: Zod) =>
  z
    .strictObject({
      amount: z.number().positive('amount must be positive'),
      unit: z.enum(DURATION_UNITS),
    })
    .refine((d) => d.amount * UNIT_MS[d.unit] <= MAX_DURATION_MS, { message: 'duration must be at most 3650 days', path: ['amount'] })
    // The JSON Schema of GET /workflows/step-types carries it, so the dashboard offers its duration input.
    .meta({ format: STEP_FORMATS.duration });

/**
 * A filter tree (db/filters/model.ts). Its shape is checked by the API's `checks.filterTree`, which
 * the sandbox cannot load, so the schema only says "an object"; the format tells the dashboard to
 * edit it with the filter builder.
 */
export const filterTreeSchema = (z: Zod) => z.record(z.string(), z.unknown()).meta({ format: STEP_FORMATS.filterTree });
