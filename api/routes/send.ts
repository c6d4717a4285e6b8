import { route } from '../route';
import { SendBody, SendOut, SEND_BODY_LIMIT } from '../schemas/send';
import { sendEmails } from '../../services/send';

export default [
  route({
    method: 'post',
    path: '/v1/send',
    auth: 'secret',
    scope: 'send',
    tag: 'send',
    summary: 'Send a transactional email now to one or more recipients (each upserted as a contact)',
    body: SendBody,
    bodyLimit: SEND_BODY_LIMIT,
    idempotent: true,
    responses: {
      200: { description: 'one entry per recipient', schema: SendOut },
      403: { description: 'sender domain not verified (code INTERNAL_SERVER_ERROR)' },
      409: { description: 'Idempotency-Key reused' },
    },
    async handler(ctx, { body, project }) {
      const emails = await sendEmails(ctx.deps, project.id, body);
      return { success: true, data: { emails, timestamp: new Date().toISOString() } };
    },
  }),
];
