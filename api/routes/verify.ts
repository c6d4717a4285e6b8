import { route } from '../route';
import { VerifyBody, VerifyOut } from '../schemas/verify';
import { verifyEmail } from '../../services/verify';

export default [
  route({
    method: 'post',
    path: '/v1/verify',
    auth: 'secret',
    tag: 'verify',
    summary: 'Check an address: format, MX records, disposable domain, typo, role and plus addressing',
    body: VerifyBody,
    responses: { 200: { description: 'verification result', schema: VerifyOut } },
    async handler(ctx, { body }) {
      return { success: true, data: await verifyEmail(ctx.deps, body.email) };
    },
  }),
];
