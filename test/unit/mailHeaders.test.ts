import fs from 'node:fs';
import path from 'node:path';
import { FORBIDDEN_HEADER_LIST, isForbiddenHeader, withoutForbiddenHeaders } from '../../lib/mailHeaders';

describe('headers a caller may not set', () => {
  it.each([
    'Bcc',
    'BCC',
    'cc',
    'To',
    'From',
    'Sender',
    'Reply-To',
    'Return-Path',
    'Delivered-To',
    'Resent-Bcc',
    'Received',
    'Message-ID',
    'Date',
    'MIME-Version',
    'Content-Type',
    'content-transfer-encoding',
    'DKIM-Signature',
    'ARC-Seal',
    'Authentication-Results',
    'Received-SPF',
    'List-Unsubscribe',
    'X-SES-CONFIGURATION-SET',
    'X-SG-EID',
    'X-SMTPAPI',
    'Subject',
  ])('refuses %s', (name) => expect(isForbiddenHeader(name)).toBe(true));

  it.each(['X-Campaign', 'In-Reply-To', 'References', 'X-Priority', 'Tox', 'X-Bcc-Note', 'Listing'])('allows %s', (name) => {
    expect(isForbiddenHeader(name)).toBe(false);
  });

  it('drops the refused ones from a stored set and keeps the rest as given', () => {
    expect(withoutForbiddenHeaders({ Bcc: 'x@example.com', 'X-Tag': 'a', 'content-type': 'text/plain', References: '<a@b>' })).toEqual({
      'X-Tag': 'a',
      References: '<a@b>',
    });
    expect(withoutForbiddenHeaders(null)).toEqual({});
  });

  it('is the list docs/api.md prints', () => {
    const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
    const listed = /<!-- forbidden-headers -->(.*)<!-- \/forbidden-headers -->/.exec(doc)?.[1];
    expect(listed).toBe(FORBIDDEN_HEADER_LIST.map((h) => `\`${h}\``).join(', '));
  });
});
