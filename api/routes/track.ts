import { route } from '../route';
import { TrackBody, TrackOut } from '../schemas/track';
import { trackEvent } from '../../services/track';

export default [
  route({
    method: 'post',
    path: '/v1/track',
    auth: 'public',
    scope: 'track',
    tag: 'events',
    summary: 'Record an event for a contact (public key); creates the contact when needed and triggers workflows',
    body: TrackBody,
    idempotent: true,
    responses: { 200: { description: 'recorded', schema: TrackOut }, 409: { description: 'Idempotency-Key reused' } },
    async handler(ctx, { body, project }) {
      const r = await trackEvent(ctx.deps, project.id, body, project.double_opt_in);
      return { success: true, data: { contact: r.contactId, event: r.eventId, timestamp: new Date(r.createdAt).toISOString() } };
    },
  }),
];
