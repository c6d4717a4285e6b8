import { MAX_BATCH_RECIPIENTS, sendgridBatchPayload, splitForSendgrid } from '../../services/sendgridBatches';
import type { BatchRecipient } from '../../services/transport';

const recipient = (i: number, html: string, text = `text of ${html}`): BatchRecipient => ({
  emailId: `e${i}`,
  to: { email: `r${i}@example.test` },
  subject: `s${i}`,
  html,
  text,
  headers: {},
});
const ids = (groups: BatchRecipient[][]) => groups.map((g) => g.map((r) => r.emailId).sort());

describe('splitForSendgrid', () => {
  it('sends one shared content together, in groups of at most 1,000, whatever its size', () => {
    const big = 'x'.repeat(20_000);
    const groups = splitForSendgrid(Array.from({ length: 2_500 }, (_, i) => recipient(i, big)));
    expect(groups.map((g) => g.length)).toEqual([MAX_BATCH_RECIPIENTS, MAX_BATCH_RECIPIENTS, 500]);
    for (const g of groups) expect(new Set(g.map((r) => r.html)).size).toBe(1);
  });

  it('puts differing small contents together as substitutions, and a large unique one alone', () => {
    const groups = splitForSendgrid([recipient(1, '<p>a</p>'), recipient(2, 'y'.repeat(10_000)), recipient(3, '<p>b</p>')]);
    expect(ids(groups)).toEqual([['e1', 'e3'], ['e2']]);
  });

  it('tells contents apart by both parts: the same HTML with another text part is another content', () => {
    const big = 'z'.repeat(20_000);
    const groups = splitForSendgrid([recipient(1, big, 'one'), recipient(2, big, 'two'), recipient(3, big, 'one')]);
    expect(ids(groups).sort()).toEqual([['e1', 'e3'], ['e2']]);
  });
});

describe('sendgridBatchPayload', () => {
  const batch = (recipients: BatchRecipient[]) => ({ projectId: 'p', campaignId: 'c', from: { email: 'f@example.test' }, recipients });

  it('sends a content every recipient shares as the message content, without substitutions', () => {
    const payload = sendgridBatchPayload(batch([recipient(1, '<p>a</p>'), recipient(2, '<p>a</p>')]));
    expect(payload.content).toEqual([
      { type: 'text/plain', value: 'text of <p>a</p>' },
      { type: 'text/html', value: '<p>a</p>' },
    ]);
    for (const p of payload.personalizations) expect(p).not.toHaveProperty('substitutions');
  });

  it('sends differing contents (either part) as per-recipient substitutions of the tags', () => {
    const payload = sendgridBatchPayload(batch([recipient(1, '<p>a</p>', 'one'), recipient(2, '<p>a</p>', 'two')]));
    expect(payload.content.map((c) => c.value)).toEqual(['%svc_text%', '%svc_body%']);
    expect(payload.personalizations.map((p) => p.substitutions)).toEqual([
      { '%svc_text%': 'one', '%svc_body%': '<p>a</p>' },
      { '%svc_text%': 'two', '%svc_body%': '<p>a</p>' },
    ]);
  });
});
