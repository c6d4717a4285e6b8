import { z } from 'zod';
import { route } from '../route';
import { renderEmailPage, renderPage } from '../pages';
import { verifyViewToken } from '../../lib/viewLinks';
import { emailView } from '../../db/emailViews';
import { withoutOpenPixel } from '../../lib/openPixel';

export default [
  route({
    method: 'get',
    path: '/v/:token',
    auth: 'none',
    tag: 'pages',
    noRateLimit: true,
    params: z.object({ token: z.string().min(1).max(512) }),
    responses: {
      200: { description: "the email's HTML as its recipient got it", contentType: 'text/html' },
      404: { description: 'an HTML page: no such link', contentType: 'text/html' },
      410: { description: "an HTML page: the email's content was removed (retention, erasure)", contentType: 'text/html' },
    },
    summary:
      'View in browser (`{{ viewInBrowserUrl }}`): one email as its recipient got it, read-only (no open is counted); 410 once its content was pruned or its contact erased',
    async handler(ctx, { params }) {
      const emailId = verifyViewToken(ctx.deps.config.jwtSecret, params.token);
      const view = emailId ? await emailView(ctx.deps.knex, emailId) : undefined;
      if (!view || (!view.gone && view.body === null)) {
        return renderPage(ctx, 'Email not found', '<p>This link does not lead to an email.</p>', 404);
      }
      if (view.gone || view.body === null) {
        return renderPage(ctx, 'This email is no longer available', '<p>Its content has been removed.</p>', 410);
      }
      renderEmailPage(ctx, view.subject ?? '', withoutOpenPixel(view.body));
    },
  }),
];
