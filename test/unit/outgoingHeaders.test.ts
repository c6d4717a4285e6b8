import { outgoingMessage } from '../../activities/outgoing';
import { loadConfig } from '../../lib/config';
import type { EmailRow } from '../../db/emails';

describe('the message of a stored email', () => {
  it('drops caller headers the API now refuses (rows stored before the rule) and keeps the rest and our own', () => {
    const config = loadConfig({ ...process.env, JWT_SECRET: 'x'.repeat(32) });
    const row = {
      id: '00000000-0000-4000-8000-000000000001',
      project_id: '00000000-0000-4000-8000-000000000002',
      contact_id: 'cnt_1',
      type: 'MARKETING',
      to_email: 'reader@example.org',
      to_name: null,
      from_email: 'hello@mail.example.com',
      from_name: null,
      reply_to: null,
      subject: 's',
      body: 'b',
      rendered_subject: 's',
      rendered_body: 'b',
      headers: { Bcc: 'hidden@example.org', 'List-Unsubscribe': '<https://evil.example>', 'X-Tag': 'kept', 'In-Reply-To': '<a@b>' },
    } as unknown as EmailRow;
    const m = outgoingMessage(config, row, []);
    expect(Object.keys(m.headers).sort()).toEqual(['In-Reply-To', 'List-Unsubscribe', 'List-Unsubscribe-Post', 'X-Tag']);
    expect(m.headers['List-Unsubscribe']).not.toContain('evil.example');
    expect(m.headers['X-Tag']).toBe('kept');
  });
});
