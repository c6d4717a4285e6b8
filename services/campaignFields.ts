import type { Knex } from 'knex';
import { DomainError } from '../lib/domainErrors';
import type { CampaignFields } from '../db/campaigns';
import { assertAudienceCompiles } from '../db/campaignAudience';
import { FilterError } from '../db/filters';
import { findSegment } from '../db/segments';
import { resolveTopicKeys } from '../db/topics';
import { assertVerifiedSender } from './senderCheck';
import { compileForProject } from './templateContent';
import { DocumentInvalid } from './emailCompiler';

/** A campaign's fields as written: the topic by its key; a blocks campaign sends its document, not a body. */
export type CampaignFieldsInput = Omit<CampaignFields, 'topicId' | 'body' | 'compiledText'> & { topic?: string | null; body?: string | null };

/** The segment named is not one of this project's (also when it goes between the check and the write). */
export const missingSegment = () =>
  new DomainError('invalid', 'Segment not found in this project', { field: 'segmentId', summary: 'Request validation failed' });

/** An audience condition the compiler refuses, named by the path of the bad node under `audienceCondition`. */
export const invalidAudience = (err: FilterError) =>
  new DomainError('invalid', err.detail, { field: err.fieldUnder('audienceCondition'), summary: 'Invalid audience condition' });

/**
 * A blocks campaign's document compiled under the project's brand, once, as it is saved: `body` is the
 * HTML every recipient's render starts from (never MJML per recipient). A document that does not
 * validate names its block (`document.blocks.3.src`).
 */
async function compiledContent(knex: Knex, projectId: string, input: CampaignFieldsInput) {
  if (input.editor !== 'blocks') return { body: input.body!, document: null, compiledText: null };
  try {
    const c = await compileForProject(knex, projectId, { editor: 'blocks', subject: input.subject, document: input.document, text: input.text ?? null });
    return { body: c.body, document: c.document, compiledText: c.compiledText };
  } catch (err) {
    if (!(err instanceof DocumentInvalid)) throw err;
    const [first] = err.problems;
    throw new DomainError('invalid', first.message, { field: first.path, summary: 'The document does not validate' });
  }
}

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
  return { ...input, ...(await compiledContent(knex, projectId, input)), editor: input.editor ?? 'html', topicId: topic?.id ?? null };
}
