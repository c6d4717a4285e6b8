import { consentRefusal } from '../../db/consent';
import { oneClickHeaders } from '../../lib/unsubscribe';

/** The consent rule and the one-click headers, each one function that every path asks (db/consent.ts, lib/unsubscribe.ts). */

describe('consentRefusal', () => {
  const topic = 'a0000000-0000-4000-8000-000000000000';
  it.each([
    // [type, topic, subscribed, topic subscribed, refusal]
    ['MARKETING', null, true, undefined, null],
    ['MARKETING', null, false, undefined, 'unsubscribed'],
    ['MARKETING', null, null, undefined, 'unsubscribed'],
    ['TRANSACTIONAL', null, false, undefined, null],
    ['HEADLESS', null, false, undefined, null],
    ['TRANSACTIONAL', topic, false, true, 'unsubscribed'],
    ['TRANSACTIONAL', topic, true, false, 'topic_unsubscribed'],
    ['TRANSACTIONAL', topic, true, null, 'topic_unsubscribed'],
    ['MARKETING', topic, true, true, null],
  ] as const)('%s mail of topic %s to a contact subscribed %s (topic %s): %s', (type, topicId, subscribed, topicSubscribed, refusal) => {
    expect(consentRefusal({ type, topicId }, { subscribed, topicSubscribed })).toBe(refusal);
  });
});

describe('oneClickHeaders', () => {
  const url = 'https://app.example/unsubscribe/t';
  it('marketing mail and mail sent as a topic carry the pair; other mail, or mail without a link, does not', () => {
    const pair = { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
    expect(oneClickHeaders({ type: 'MARKETING', topicId: null }, url)).toEqual(pair);
    expect(oneClickHeaders({ type: 'TRANSACTIONAL', topicId: 't' }, url)).toEqual(pair);
    expect(oneClickHeaders({ type: 'TRANSACTIONAL', topicId: null }, url)).toEqual({});
    expect(oneClickHeaders({ type: 'MARKETING', topicId: null }, undefined)).toEqual({});
  });
});
