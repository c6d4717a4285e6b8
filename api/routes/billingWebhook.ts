import { route } from '../route';
import { ApiError } from '../errors';
import { parseRawJson } from '../middleware/rawBody';
import { BillingWebhookOut, StripeEvent } from '../schemas/billing';
import { receiveStripeEvent } from '../../services/billing';
import { verifyStripeSignature } from '../../lib/stripe';

/** Stripe events are a few kilobytes; anything near this is not one. */
const MAX_EVENT_BYTES = 1024 * 1024;

export default [
  route({
    method: 'post',
    path: '/webhooks/incoming/stripe',
    auth: 'none',
    tag: 'webhooks',
    summary: 'Stripe event notifications (signed with STRIPE_WEBHOOK_SECRET); not called by API users',
    noRateLimit: true,
    // The signature covers the exact bytes Stripe sent.
    rawJsonBody: { limitBytes: MAX_EVENT_BYTES },
    responses: {
      200: {
        description: 'received; outcome: applied, ignored (a type this server does not act on) or duplicate (an event id already handled)',
        schema: BillingWebhookOut,
      },
      400: { description: 'INVALID_SIGNATURE, or not a Stripe event' },
      404: { description: 'BILLING_DISABLED: billing or the webhook secret is not configured' },
    },
    async handler(ctx) {
      const settings = ctx.deps.config.billing;
      if (!settings.enabled || !settings.webhookSecret) {
        throw new ApiError(404, 'BILLING_DISABLED', 'Billing webhooks are not enabled on this server', {
          suggestion: 'Set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET to receive Stripe events',
        });
      }
      const payload = ctx.state.rawBody!;
      const check = verifyStripeSignature(payload, ctx.get('Stripe-Signature') || undefined, settings.webhookSecret);
      if (!check.ok) throw new ApiError(400, 'INVALID_SIGNATURE', `Invalid Stripe signature: ${check.reason}`);
      const event = StripeEvent.safeParse(parseRawJson(payload));
      if (!event.success) throw new ApiError(400, 'BAD_REQUEST', 'The payload is not a Stripe event');
      const { id, type, data } = event.data;
      const outcome = await receiveStripeEvent(ctx.deps.knex, id, type, data.object);
      return { received: true, outcome };
    },
  }),
];
