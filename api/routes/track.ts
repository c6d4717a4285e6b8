import { route } from '../route';
import { ApiError } from '../errors';

// The public-key route exists now so key-kind rules are enforced in both directions;
// recording events arrives with the transactional-core issue.
export default [
  route({
    method: 'post',
    path: '/v1/track',
    auth: 'public',
    tag: 'events',
    summary: 'Record an event for a contact (public key)',
    async handler() {
      throw new ApiError(501, 'NOT_IMPLEMENTED', 'Event tracking is not available yet');
    },
  }),
];
