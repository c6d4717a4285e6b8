/** Raw messages of the shapes the inbound server receives (CRLF lines, as SMTP carries them). */

const lines = (...l: string[]) => Buffer.from(`${l.join('\r\n')}\r\n`);

export interface ReportOptions {
  /** The envelope/To address: a VERP return path. */
  to: string;
  recipient?: string;
  originalMessageId?: string;
  messageId?: string;
}

/** RFC 3464 multipart/report; report-type=delivery-status, as Postfix sends it. */
export function dsn(o: ReportOptions & { status: string; action?: string; diagnostic?: string }): Buffer {
  const recipient = o.recipient ?? 'reader@example.org';
  return lines(
    'From: Mail Delivery System <MAILER-DAEMON@mx.example.org>',
    `To: ${o.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <${o.messageId ?? `dsn-${Math.random().toString(36).slice(2)}@mx.example.org`}>`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="DSN-B1"',
    '',
    'This is a MIME-encapsulated message.',
    '',
    '--DSN-B1',
    'Content-Description: Notification',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    "I'm sorry to have to inform you that your message could not be delivered to one or more recipients.",
    '',
    '--DSN-B1',
    'Content-Description: Delivery report',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.example.org',
    'Arrival-Date: Thu, 26 Nov 2026 10:00:00 +0000',
    '',
    `Final-Recipient: rfc822; ${recipient}`,
    `Original-Recipient: rfc822;${recipient}`,
    `Action: ${o.action ?? (o.status.startsWith('5') ? 'failed' : 'delayed')}`,
    `Status: ${o.status}`,
    `Diagnostic-Code: ${o.diagnostic ?? `smtp; 550 ${o.status} <${recipient}>: Recipient address rejected: User unknown`}`,
    '',
    '--DSN-B1',
    'Content-Description: Undelivered Message Headers',
    'Content-Type: text/rfc822-headers',
    '',
    `Message-ID: <${o.originalMessageId ?? 'original@example.com'}>`,
    'Subject: Hello',
    '',
    '--DSN-B1--',
  );
}

/** qmail's plain-text bounce: no report part, the code in the prose. */
export function qmailBounce(o: ReportOptions): Buffer {
  return lines(
    'From: MAILER-DAEMON@mx.example.org',
    `To: ${o.to}`,
    'Subject: failure notice',
    `Message-ID: <${o.messageId ?? `qmail-${Math.random().toString(36).slice(2)}@mx.example.org`}>`,
    '',
    'Hi. This is the qmail-send program at mx.example.org.',
    "I'm afraid I wasn't able to deliver your message to the following addresses.",
    "This is a permanent error; I've given up. Sorry it didn't work out.",
    '',
    `<${o.recipient ?? 'reader@example.org'}>:`,
    'Remote host said: 550 5.1.1 The email account that you tried to reach does not exist.',
    '',
    '--- Below this line is a copy of the message.',
    '',
    `Message-ID: <${o.originalMessageId ?? 'original@example.com'}>`,
    'Subject: Hello',
  );
}

/** RFC 5965 abuse report, as a feedback loop sends it. */
export function arf(o: ReportOptions & { feedbackType?: string }): Buffer {
  const recipient = o.recipient ?? 'reader@example.org';
  return lines(
    'From: Feedback Loop <fbl@isp.example>',
    `To: ${o.to}`,
    'Subject: FW: Hello',
    `Message-ID: <${o.messageId ?? `arf-${Math.random().toString(36).slice(2)}@isp.example`}>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="ARF-B1"',
    '',
    '--ARF-B1',
    'Content-Type: text/plain; charset="US-ASCII"',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.1.',
    '',
    '--ARF-B1',
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${o.feedbackType ?? 'abuse'}`,
    'User-Agent: SomeGenerator/1.0',
    'Version: 1',
    `Original-Rcpt-To: <${recipient}>`,
    'Source-IP: 192.0.2.1',
    '',
    '--ARF-B1',
    'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    `From: <hello@example.com>`,
    `To: <${recipient}>`,
    'Subject: Hello',
    `Message-ID: <${o.originalMessageId ?? 'original@example.com'}>`,
    '',
    'Hello',
    '',
    '--ARF-B1--',
  );
}

/** A person's answer, threaded to `inReplyTo` when given. */
export function reply(o: {
  from: string;
  to: string;
  subject?: string;
  inReplyTo?: string;
  references?: string[];
  text?: string;
  messageId?: string;
  attachment?: boolean;
}): Buffer {
  const head = [
    `From: Reader <${o.from}>`,
    `To: ${o.to}`,
    `Subject: ${o.subject ?? 'Re: Hello'}`,
    `Message-ID: <${o.messageId ?? `reply-${Math.random().toString(36).slice(2)}@example.org`}>`,
    'Date: Thu, 26 Nov 2026 10:00:00 +0000',
    ...(o.inReplyTo ? [`In-Reply-To: <${o.inReplyTo}>`] : []),
    ...(o.references?.length ? [`References: ${o.references.map((r) => `<${r}>`).join(' ')}`] : []),
    'MIME-Version: 1.0',
  ];
  if (!o.attachment) return lines(...head, 'Content-Type: text/plain; charset=utf-8', '', o.text ?? 'Thanks, that works for me.');
  return lines(
    ...head,
    'Content-Type: multipart/mixed; boundary="R-B1"',
    '',
    '--R-B1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    o.text ?? 'See attached.',
    '--R-B1',
    'Content-Type: application/pdf; name="invoice.pdf"',
    'Content-Disposition: attachment; filename="invoice.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4 fake').toString('base64'),
    '--R-B1--',
  );
}
