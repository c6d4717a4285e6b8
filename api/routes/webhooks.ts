import { route } from '../route';
import type { AppContext } from '../context';
import { ApiError, validationError } from '../errors';
import { parseRawJson } from '../middleware/rawBody';
import { fieldErrors, safeParse } from '../validation';
import { ProviderEventsOut, SendgridEventBatch } from '../schemas/campaigns';
import { providerEvents, sendgridTimestampProblem, SIGNATURE_HEADER, TIMESTAMP_HEADER, verifySendgridSignature } from '../../services/providerEvents';

/** Names the variable that holds SendGrid's Event Webhook verification key (config.sendgridWebhookPublicKey). */
const WEBHOOK_KEY_ENV = 'SENDGRID_WEBHOOK_PUBLIC_KEY';

const refused = (message: string) => new ApiError(401, 'UNAUTHORIZED', message);

/** SendGrid posts batches well below this. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * With a key configured every request must carry a valid signature over the exact bytes received,
 * made within SENDGRID_SIGNATURE_MAX_AGE_SECONDS of now.
 * Without one, unsigned events are accepted in development and refused in production.
 */
function assertSigned(ctx: AppContext, raw: Buffer): void {
  const key = ctx.deps.config.sendgridWebhookPublicKey;
  if (!key) {
    if (ctx.deps.config.production) throw refused(`Provider events are refused until ${WEBHOOK_KEY_ENV} is configured`);
    return;
  }
  const signature = ctx.get(SIGNATURE_HEADER);
  const timestamp = ctx.get(TIMESTAMP_HEADER);
  if (!signature || !timestamp) throw refused('Missing event webhook signature');
  if (!verifySendgridSignature(key, raw, signature, timestamp)) throw refused('Invalid event webhook signature');
  // After the signature: only a signed timestamp says when the request was made.
  const stale = sendgridTimestampProblem(timestamp);
  if (stale) throw refused(stale);
}

export default [
  route({
    method: 'post',
    path: '/webhooks/sendgrid',
    auth: 'none',
    noRateLimit: true,
    // The signature covers the exact bytes SendGrid sent.
    rawJsonBody: { limitBytes: MAX_BODY_BYTES },
    tag: 'webhooks',
    summary: 'SendGrid Event Webhook (JSON array, signed): delivery, open, click, bounce, spam report and unsubscribe events; each applied once',
    responses: {
      200: { description: 'applied (repeats of an event already applied are counted as duplicates)', schema: ProviderEventsOut },
      400: { description: 'not JSON' },
      401: {
        description:
          'missing or invalid signature, a signature timestamp more than 10 minutes from now (a replay), or no verification key configured in production',
      },
      415: { description: 'not application/json' },
      422: { description: 'not an array of event objects' },
    },
    async handler(ctx) {
      const raw = ctx.state.rawBody!;
      assertSigned(ctx, raw);
      const events = safeParse(SendgridEventBatch, parseRawJson(raw));
      if (!events.success) throw validationError(fieldErrors(events.error));
      const data = await providerEvents(ctx.deps).applySendgridEvents(events.data);
      return { success: true, data };
    },
  }),
];
