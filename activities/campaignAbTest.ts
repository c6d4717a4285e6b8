import type { ActivityDeps } from './deps';
import { getCampaign } from '../db/campaigns';
import { abTestWinnerDue, assignAbTestGroup, chooseAbTestWinner } from '../db/campaignAbTest';
import { UNIT_MS } from '../temporal/steps/types';

/**
 * The A/B subject test phase of `campaignSend` (docs/campaigns.md "A/B subject test"). Every
 * decision is written to Postgres before it is answered, so a retried activity, a replayed
 * workflow or a run the sweep starts again gets the same test group, the same moment and the same winner.
 */
export function campaignAbTestActivities(deps: ActivityDeps) {
  const { knex } = deps;
  return {
    /** Picks the test group from the audience snapshot (once); null when the campaign has no test. */
    async startCampaignAbTest(campaignId: string): Promise<{ testGroup: number; winner: number | null } | null> {
      return assignAbTestGroup(knex, campaignId);
    },

    /**
     * When the winner is due (ISO): `winnerAfter` (times the time scale) after the test group was
     * handed over, fixed the first time; `now` is the same clock's. null when the test is gone.
     */
    async campaignAbTestWinnerDue(input: { campaignId: string; timeScale?: number }): Promise<{ dueAt: string; now: number } | null> {
      const c = await getCampaign(knex, input.campaignId);
      if (!c?.ab_test) return null;
      const { amount, unit } = c.ab_test.winnerAfter;
      const due = await abTestWinnerDue(knex, c.id, amount * UNIT_MS[unit] * (input.timeScale ?? 1));
      return due && { dueAt: new Date(due.dueAt).toISOString(), now: new Date(due.now).getTime() };
    },

    /** The subject with the best rate of the test's metric (ties keep the first), stored once; its index. */
    async chooseCampaignAbTestWinner(campaignId: string): Promise<number | null> {
      const winner = await chooseAbTestWinner(knex, campaignId);
      if (winner !== null) deps.log.info({ campaignId, winner }, 'campaign A/B test: winner chosen');
      return winner;
    },
  };
}
