import { z } from 'zod';
import { route } from '../route';
import { ApiError, badRequest, validationError } from '../errors';
import { fieldErrors, safeParse } from '../validation';
import { ProviderEventsOut } from '../schemas/campaigns';
import { providerEvents } from '../../services/providerEvents';
import { sesProviderEvents } from '../../services/sesEvents';
import { confirmSnsSubscription, sesWebhookEnabled, SnsError, SnsMessage, verifySnsMessage } from '../../services/snsMessages';

/** What a subscription (un)confirmation is answered with. */
const SnsConfirmationOut = z.object({
  success: z.literal(true),
  data: z.object({ type: z.enum(['SubscriptionConfirmation', 'UnsubscribeConfirmation']), confirmed: z.boolean() }),
});

/** Refused messages are the sender's to fix (4xx, SNS does not retry); an unreachable certificate or SubscribeURL is ours (503, SNS retries). */
function answer(err: unknown): unknown {
  if (!(err instanceof SnsError)) return err;
  return err.kind === 'refused' ? new ApiError(401, 'UNAUTHORIZED', err.message) : new ApiError(503, 'SERVICE_UNAVAILABLE', err.message);
}

/**
 * SNS posts its JSON as `text/plain` (unless the subscription's delivery policy says otherwise),
 * so both are read. The signature covers field values, not bytes, so the parsed body is enough.
 */
function snsJson(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    throw badRequest('The payload is not JSON');
  }
}

export default [
  route({
    method: 'post',
    path: '/webhooks/ses',
    auth: 'none',
    noRateLimit: true,
    // SNS messages are at most 256 KB; text/plain bodies have the router's text limit (56 KB), well above SES's notifications.
    bodyLimit: '300kb',
    tag: 'webhooks',
    summary:
      'Amazon SNS endpoint for SES notifications (bounce, complaint, delivery, open, click, send, reject): every message signature-checked; subscriptions confirmed; each notification applied once',
    responses: {
      200: {
        description: 'applied (a repeated SNS message id counts as a duplicate), or a subscription confirmed',
        schema: z.union([ProviderEventsOut, SnsConfirmationOut]),
      },
      400: { description: 'not JSON' },
      401: {
        description:
          'bad signature, a topic not in SNS_TOPIC_ARNS, unsupported signature version, signing certificate or SubscribeURL not on an allowed host (SNS_CERT_HOSTS), or a message older than 3 days',
      },
      404: { description: 'the endpoint is off: it listens only with EMAIL_TRANSPORT=ses and SNS_TOPIC_ARNS set' },
      422: { description: 'not an SNS message' },
      503: { description: 'the signing certificate or the SubscribeURL could not be reached; SNS retries' },
    },
    async handler(ctx) {
      if (!sesWebhookEnabled(ctx.deps.config.email))
        throw new ApiError(404, 'NOT_FOUND', 'POST /webhooks/ses is off: it needs EMAIL_TRANSPORT=ses and SNS_TOPIC_ARNS');
      const parsed = safeParse(SnsMessage, snsJson(ctx.request.body));
      if (!parsed.success) throw validationError(fieldErrors(parsed.error), 'Not an SNS message');
      const m = parsed.data;
      const email = ctx.deps.config.email;
      try {
        await verifySnsMessage(email, ctx.deps.runtime.snsCerts, m);
        if (m.Type === 'SubscriptionConfirmation') await confirmSnsSubscription(email, m);
      } catch (err) {
        throw answer(err);
      }
      if (m.Type !== 'Notification') {
        // An UnsubscribeConfirmation is left alone: visiting its URL would subscribe again.
        return { success: true, data: { type: m.Type, confirmed: m.Type === 'SubscriptionConfirmation' } };
      }
      const data = await providerEvents(ctx.deps).applyProviderEvents(sesProviderEvents(m.MessageId, m.Message));
      return { success: true, data };
    },
  }),
];
