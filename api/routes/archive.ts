import { z } from 'zod';
import { Feed } from 'feed';
import { route } from '../route';
import type { AppContext } from '../context';
import { escapeHtml, renderEmailPage, renderPage } from '../pages';
import { archivedCampaign, archivedCampaigns, projectBySlug, type ArchiveProject } from '../../db/archive';
import type { CampaignRow } from '../../db/campaigns';
import { renderForArchive } from '../../services/archive';
import { RenderError } from '../../services/render';

/**
 * The public archive (docs/campaigns.md "Public archive"): a project's SENT campaigns marked
 * `archive`, newest first, each rendered for an anonymous reader, and their Atom feed. No auth:
 * the slug is public by design; nothing here names or tracks a recipient.
 */

const common = { auth: 'none', tag: 'pages', noRateLimit: true, method: 'get' } as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const Slug = z.string().min(1).max(200);

const archivePath = (slug: string) => `/archive/${encodeURIComponent(slug)}`;
const campaignPath = (slug: string, id: string) => `${archivePath(slug)}/${id}`;

const notFoundPage = (ctx: AppContext) => renderPage(ctx, 'Archive not found', '<p>There is no archive at this address.</p>', 404);

/** The anonymous rendering, or a neutral stand-in when the template no longer renders. */
async function rendered(c: CampaignRow, url: string) {
  try {
    return await renderForArchive(c, url);
  } catch (err) {
    if (!(err instanceof RenderError)) throw err;
    return { subject: c.name, body: '<p>This email cannot be shown.</p>', text: '' };
  }
}

async function loadProject(ctx: AppContext, slug: string): Promise<ArchiveProject | undefined> {
  return projectBySlug(ctx.deps.knex, slug);
}

export default [
  route({
    ...common,
    path: '/archive/:slug',
    params: z.object({ slug: Slug }),
    responses: {
      200: { description: "an HTML page: the project's public campaigns, newest first", contentType: 'text/html' },
      404: { description: 'an HTML page: no project has this slug', contentType: 'text/html' },
    },
    summary: 'Public archive of a project (by its slug): its SENT campaigns marked `archive`, newest first, with a link to each and to the Atom feed',
    async handler(ctx, { params }) {
      const project = await loadProject(ctx, params.slug);
      if (!project) return notFoundPage(ctx);
      const campaigns = await archivedCampaigns(ctx.deps.knex, project.id);
      const items = await Promise.all(
        campaigns.map(async (c) => {
          const path = campaignPath(project.slug, c.id);
          const { subject } = await rendered(c, `${ctx.deps.config.appUrl}${path}`);
          const date = c.sent_at ? `<time datetime="${c.sent_at.toISOString()}">${c.sent_at.toISOString().slice(0, 10)}</time> ` : '';
          return `<li>${date}<a href="${escapeHtml(path)}">${escapeHtml(subject || c.name)}</a></li>`;
        }),
      );
      const list = items.length ? `<ul>\n${items.join('\n')}\n</ul>` : '<p>No campaigns yet.</p>';
      renderPage(
        ctx,
        `${project.name}: past campaigns`,
        `${list}\n<p><a href="${escapeHtml(`${archivePath(project.slug)}/feed.xml`)}">Atom feed</a></p>`,
        200,
        { indexable: true },
      );
    },
  }),
  // Before /archive/:slug/:campaignId, which would otherwise take "feed.xml" for an id.
  route({
    ...common,
    path: '/archive/:slug/feed.xml',
    params: z.object({ slug: Slug }),
    responses: {
      200: { description: 'the Atom feed of the public archive', contentType: 'application/atom+xml' },
      404: { description: 'an HTML page: no project has this slug', contentType: 'text/html' },
    },
    summary: 'Atom feed of the public archive: one entry per public SENT campaign (title, link, updated, id, content rendered for an anonymous reader)',
    async handler(ctx, { params }) {
      const project = await loadProject(ctx, params.slug);
      if (!project) return notFoundPage(ctx);
      const base = ctx.deps.config.appUrl;
      const campaigns = await archivedCampaigns(ctx.deps.knex, project.id);
      const feed = new Feed({
        id: `${base}${archivePath(project.slug)}`,
        title: project.name,
        link: `${base}${archivePath(project.slug)}`,
        updated: campaigns[0]?.sent_at ?? new Date(0),
        generator: false,
        feedLinks: { atom: `${base}${archivePath(project.slug)}/feed.xml` },
      });
      for (const c of campaigns) {
        const url = `${base}${campaignPath(project.slug, c.id)}`;
        const r = await rendered(c, url);
        feed.addItem({ id: url, title: r.subject || c.name, link: url, date: c.sent_at ?? c.updated_at, content: r.body });
      }
      ctx.status = 200;
      ctx.type = 'application/atom+xml';
      ctx.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
      ctx.body = feed.atom1();
    },
  }),
  route({
    ...common,
    path: '/archive/:slug/:campaignId',
    params: z.object({ slug: Slug, campaignId: z.string().max(100) }),
    responses: {
      200: { description: 'an HTML page: the campaign rendered for an anonymous reader (no personal data, no tracking)', contentType: 'text/html' },
      404: { description: 'an HTML page: no such public campaign in this archive', contentType: 'text/html' },
    },
    summary:
      'One campaign of the public archive, rendered for an anonymous reader: variables take their fallbacks, subscription links are empty, nothing is tracked',
    async handler(ctx, { params }) {
      const project = await loadProject(ctx, params.slug);
      const c = project && UUID.test(params.campaignId) ? await archivedCampaign(ctx.deps.knex, project.id, params.campaignId) : undefined;
      if (!project || !c) return notFoundPage(ctx);
      const r = await rendered(c, `${ctx.deps.config.appUrl}${campaignPath(project.slug, c.id)}`);
      renderEmailPage(ctx, r.subject || c.name, r.body, { noIndex: false });
    },
  }),
];
