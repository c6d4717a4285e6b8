import { proxyActivities } from '@temporalio/workflow';
import type { webhookActivities } from '../../activities/steps/webhook';
import type { ConfigChecks, ConfigOf, StepContext, StepOutcome, Zod } from './types';

const { callWebhook } = proxyActivities<ReturnType<typeof webhookActivities>>({
  // The activity bounds the whole call (redirects included) well below this.
  startToCloseTimeout: '1 minute',
  // A refused target or a bad body never gets better; a network error may, a few times.
  retry: { maximumAttempts: 3, initialInterval: '2 seconds', nonRetryableErrorTypes: ['WebhookRefused', 'StepConfigError'] },
});

// Framing headers are the client's to compute; letting a config set them would allow request smuggling.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'expect']);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const headers = (z: Zod) =>
  z.record(z.string(), z.string()).superRefine((headers, ctx) => {
    for (const [name, value] of Object.entries(headers)) {
      if (!TOKEN.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'header name must be an HTTP token' });
      else if (RESERVED_HEADERS.has(name.toLowerCase())) ctx.addIssue({ code: 'custom', path: [name], message: `header ${name} is set by the client` });
      if (/[\r\n\0]/.test(value) || value.length > 4096)
        ctx.addIssue({ code: 'custom', path: [name], message: 'header value must be at most 4096 characters without line breaks' });
    }
  });

/**
 * Calls an HTTP endpoint (activities/steps/webhook.ts: SSRF-safe). The response status and JSON body go to
 * the execution context as `webhook`; a refused target fails the step with its reason.
 */
export const type = 'WEBHOOK';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Call webhook';
export const description = "Calls a web address of yours, with the contact's details.";
export const category = 'Data';
export const icon = 'webhook';
export const summary = (c: { method?: string; url: string }) => `${c.method ?? 'POST'} ${c.url.replace(/^https?:\/\//, '').slice(0, 60)}`;
export const config = (z: Zod) =>
  z
    .strictObject({
      url: z
        .string()
        .max(2048)
        .url()
        .refine((u) => /^https?:\/\//i.test(u), 'url must be http or https'),
      method: z.enum(['POST', 'PUT', 'PATCH', 'GET']).default('POST'),
      headers: headers(z).optional(),
      /** Liquid, rendered with the contact, the execution context and the triggering event. */
      body: z.string().max(100_000).optional(),
    })
    .refine((c) => !(c.method === 'GET' && c.body !== undefined), { message: 'a GET request has no body', path: ['body'] });
export const branches = ['next'] as const;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ url, method: POST|PUT|PATCH|GET (POST), headers?, body? }`',
  notes:
    'response `{ status, body }` (JSON or null) into the context as `webhook`; any HTTP answer completes the step, a network error is retried twice, a refused target fails it',
};

export async function check(c: ConfigOf<typeof config>, checks: ConfigChecks): Promise<void> {
  if (c.body !== undefined) checks.liquid('body', c.body);
}

export async function run(c: ConfigOf<typeof config>, ctx: StepContext): Promise<StepOutcome> {
  // A test run calls webhooks only when the tester asked for it ("Call webhooks").
  if (ctx.test && !ctx.test.callWebhooks) return { branch: 'next', status: 'SKIPPED', output: { reason: 'test run: webhooks are not called' } };
  // The activity renders with the stored context and stores the answer (context `webhook` and the
  // step's output) itself: the answer may echo personal data, and the history gets the status only.
  await callWebhook({ projectId: ctx.projectId, contactId: ctx.contactId, executionId: ctx.executionId, seq: ctx.seq, config: c });
  return { branch: 'next' };
}
