import type { Knex } from 'knex';
import { createWorkflowGraph, type WorkflowRow } from '../db/workflows';

/**
 * "Start from a flow" (docs/workflows.md): ready-made graphs a workflow is created from, disabled.
 * Their SEND_EMAIL steps have no template yet (config `{}`): the validator asks for one on each
 * ("Send email: pick a template"), and once every template is picked the graph can be enabled
 * (test/unit/workflowStarters.test.ts checks the graphs against the registry;
 * test/integration/workflowStartersAndTests.test.ts enables each one through the API).
 */

export interface StarterStep {
  /** Names the step within the starter, for its transitions. */
  key: string;
  type: string;
  name: string;
  config: Record<string, unknown>;
}

export interface WorkflowStarter {
  key: string;
  name: string;
  /** One or two sentences for people: what the flow does and when it starts. */
  description: string;
  eventName: string;
  allowReentry: boolean;
  steps: StarterStep[];
  /** `[from, to, branch]`; `trigger` names the TRIGGER step. */
  transitions: [string, string, string][];
}

/** A SEND_EMAIL step whose template is left to pick. */
const email = (key: string, name: string): StarterStep => ({ key, type: 'SEND_EMAIL', name, config: {} });
const wait = (key: string, amount: number, unit: 'hours' | 'days'): StarterStep => ({ key, type: 'DELAY', name: 'Wait', config: { amount, unit } });
/** A straight line from the trigger through `keys`. */
const line = (keys: string[]): [string, string, string][] => keys.slice(1).map((k, i) => [keys[i], k, 'next']);

export const WORKFLOW_STARTERS: readonly WorkflowStarter[] = [
  {
    key: 'welcome-series',
    name: 'Welcome series',
    description: 'Three emails over the first week after someone signs up: a welcome, tips after two days, a nudge after five.',
    eventName: 'signup',
    allowReentry: false,
    steps: [email('welcome', 'Welcome'), wait('wait1', 2, 'days'), email('tips', 'Tips'), wait('wait2', 3, 'days'), email('nudge', 'Get the most out of it')],
    transitions: line(['trigger', 'welcome', 'wait1', 'tips', 'wait2', 'nudge']),
  },
  {
    key: 'abandoned-cart',
    name: 'Abandoned cart',
    description: 'When a checkout starts, waits up to a day for a purchase; without one, sends a reminder.',
    eventName: 'checkout.started',
    allowReentry: true,
    steps: [
      { key: 'purchase', type: 'WAIT_FOR_EVENT', name: 'Wait for purchase', config: { eventName: 'purchase', timeout: { amount: 1, unit: 'days' } } },
      email('reminder', 'Reminder'),
    ],
    // A purchase ends the run (`next` left open); the time limit leads to the reminder.
    transitions: [
      ['trigger', 'purchase', 'next'],
      ['purchase', 'reminder', 'timeout'],
    ],
  },
  {
    key: 're-engagement',
    name: 'Re-engagement',
    description: 'After each opened email, waits 90 days for another open; a contact who opened nothing in that time gets a “we miss you” email.',
    eventName: 'email.opened',
    allowReentry: true,
    steps: [
      { key: 'open', type: 'WAIT_FOR_EVENT', name: 'Wait for an open', config: { eventName: 'email.opened', timeout: { amount: 90, unit: 'days' } } },
      email('miss', 'We miss you'),
    ],
    transitions: [
      ['trigger', 'open', 'next'],
      ['open', 'miss', 'timeout'],
    ],
  },
  {
    key: 'double-opt-in-nurture',
    name: 'Double opt-in nurture',
    description: 'When a contact confirms their subscription, welcomes them, then sends two more emails a few days apart.',
    eventName: 'contact.subscribed',
    allowReentry: false,
    steps: [
      email('welcome', 'Thanks for confirming'),
      wait('wait1', 3, 'days'),
      email('best', 'Our best content'),
      wait('wait2', 4, 'days'),
      email('offer', 'An offer for you'),
    ],
    transitions: line(['trigger', 'welcome', 'wait1', 'best', 'wait2', 'offer']),
  },
  {
    key: 'post-purchase',
    name: 'Post-purchase follow-up',
    description: 'A day after a purchase, a thank-you with how to get started; a week later, a request for a review.',
    eventName: 'purchase',
    allowReentry: true,
    steps: [wait('wait1', 1, 'days'), email('thanks', 'Thank you'), wait('wait2', 7, 'days'), email('review', 'Review request')],
    transitions: line(['trigger', 'wait1', 'thanks', 'wait2', 'review']),
  },
];

export const findWorkflowStarter = (key: string) => WORKFLOW_STARTERS.find((s) => s.key === key);

/** The workflow of a starter, disabled, its templates left to pick. */
export function createFromStarter(db: Knex, projectId: string, starter: WorkflowStarter, name?: string): Promise<WorkflowRow> {
  return createWorkflowGraph(db, projectId, {
    workflow: { name: name ?? starter.name, description: starter.description, eventName: starter.eventName, allowReentry: starter.allowReentry },
    steps: starter.steps,
    transitions: starter.transitions,
  });
}
