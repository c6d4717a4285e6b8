import { z } from 'zod';

/** First-party open and click tracking (docs/tracking.md). */

/** A choice or an override: the keys given win, the rest follow the next level (campaign or request → settings → defaults). */
export const TrackingChoiceIn = z.strictObject({
  opens: z.boolean().optional().describe('add the open pixel'),
  clicks: z.boolean().optional().describe('rewrite the http(s) links of the HTML body to tracked redirects (subscription links excepted)'),
});

export const TrackingChoiceOut = z.object({ opens: z.boolean().optional(), clicks: z.boolean().optional() });

const Full = z.object({ opens: z.boolean(), clicks: z.boolean() });

/** PATCH /settings `tracking`: only the types and keys sent change. HEADLESS mail follows TRANSACTIONAL. */
export const TrackingSettingsPatch = z.strictObject({ MARKETING: TrackingChoiceIn.optional(), TRANSACTIONAL: TrackingChoiceIn.optional() });

export const TrackingSettingsOut = z
  .object({ MARKETING: Full, TRANSACTIONAL: Full })
  .describe('per email type (HEADLESS follows TRANSACTIONAL); defaults: MARKETING both on, TRANSACTIONAL both off');

export const CampaignLinksOut = z.array(
  z.object({
    url: z.string().describe('the original URL of the link'),
    clicks: z.number().int().describe('human clicks, repeats included'),
    uniqueClicks: z.number().int().describe('recipients who clicked it at least once'),
  }),
);
