import type { Knex } from 'knex';
import { DomainError } from '../lib/domainErrors';
import type { CampaignFields } from '../db/campaigns';
import { assertAudienceCompiles } from '../db/campaignAudience';
import { FilterError } from '../db/filters';
import { findSegment } from '../db/segments';
import { resolveTopicKeys } from '../db/topics';
import { assertVerifiedSender } from './senderCheck';

/** A campaign's fields as written: the topic by its key. */
export type CampaignFieldsInput = Omit<CampaignFields, 'topicId'> & { topic?: string | null };

/** The segment named is not one of this project's (also when it goes between the check and the write). */
export const missingSegment = () =>
  new DomainError('invalid', 'Segment not found in this project', { field: 'segmentId', summary: 'Request validation failed' });

/** An audience condition the compiler refuses, named by the path of the bad node under `audienceCondition`. */
export const invalidAudience = (err: FilterError) =>
  new DomainError('invalid', err.detail, { field: err.fieldUnder('audienceCondition'), summary: 'Invalid audience condition' });

/** Create and replace share these checks: a verified sender, a segment of this project, a tree that compiles, a topic of this project. */
export async function checkedCampaignFields(knex: Knex, projectId: string, input: CampaignFieldsInput, senderWaived: boolean): Promise<CampaignFields> {
  if (input.audienceType === 'SEGMENT' && !(await findSegment(knex, projectId, input.segmentId!))) throw missingSegment();
  if (input.audienceType === 'FILTERED') {
    try {
      await assertAudienceCompiles(knex, projectId, input.audienceCondition);
    } catch (err) {
      if (err instanceof FilterError) throw invalidAudience(err);
      throw err;
    }
  }
  await assertVerifiedSender(knex, projectId, input.from, senderWaived);
  const topic = input.topic ? (await resolveTopicKeys(knex, projectId, [input.topic], () => 'topic')).get(input.topic)! : null;
  return { ...input, topicId: topic?.id ?? null };
}
