/** n / of rounded to 4 decimals; 0 when `of` is 0 (a rate of nothing sent is 0, not NaN). */
export const rate = (n: number, of: number): number => (of > 0 ? Math.round((n / of) * 10_000) / 10_000 : 0);

/** Opens, clicks and bounces as shares of what was sent: campaign stats and the analytics funnel alike. */
export const sendRates = (c: { sent: number; opened: number; clicked: number; bounced: number }) => ({
  openRate: rate(c.opened, c.sent),
  clickRate: rate(c.clicked, c.sent),
  bounceRate: rate(c.bounced, c.sent),
});
