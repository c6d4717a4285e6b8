import { campaignTextSource, type CampaignRow } from '../db/campaigns';
import { subjectFor } from '../db/campaignAbTest';
import { renderTemplate, type Rendered } from './render';

/**
 * A campaign as an anonymous reader of the public archive sees it: rendered with no contact at all,
 * so every variable takes its fallback (`{{ firstName ?? "there" }}`) or renders empty, the
 * subscription links are empty, and nothing is tracked (no pixel, no rewritten link). A feed
 * digest keeps its items. `url`: the archive page itself, the reader's "view in browser".
 */
export async function renderForArchive(c: CampaignRow, url: string): Promise<Rendered> {
  const variables = {
    unsubscribeUrl: '',
    subscribeUrl: '',
    manageUrl: '',
    viewInBrowserUrl: url,
    ...(c.rss_items ? { items: c.rss_items } : {}),
  };
  return renderTemplate({ subject: subjectFor(c, null), body: c.body, text: campaignTextSource(c) }, variables);
}
