import { smtpFailure } from '../../services/smtpTransport';
import { TransportRejected } from '../../services/transport';

/** nodemailer's errors carry the server's reply code and the command it answered. */
const replied = (responseCode: number, command: string) => Object.assign(new Error('refused'), { responseCode, command, response: `${responseCode} no` });

describe('smtpFailure: what an SMTP failure says about the message', () => {
  it('a 5xx to RCPT TO or DATA is refused for good and a bounce', () => {
    for (const command of ['RCPT TO', 'DATA']) {
      const f = smtpFailure(replied(550, command));
      expect(f).toBeInstanceOf(TransportRejected);
      expect(f).toMatchObject({ status: 550, retryable: false, bounce: true });
    }
  });

  it('a 5xx to MAIL FROM or AUTH is refused for good but no bounce: the relay refused us, not the recipient', () => {
    for (const command of ['MAIL FROM', 'AUTH PLAIN']) expect(smtpFailure(replied(535, command))).toMatchObject({ retryable: false, bounce: false });
  });

  it('a 4xx, and 503 (a sequence problem), may succeed later: retried, no bounce', () => {
    expect(smtpFailure(replied(451, 'RCPT TO'))).toMatchObject({ retryable: true, bounce: false });
    expect(smtpFailure(replied(503, 'DATA'))).toMatchObject({ retryable: true, bounce: false });
  });

  it('a connection that never opened sent nothing: retried', () => {
    expect(smtpFailure(Object.assign(new Error('connect'), { code: 'ESOCKET', originalCode: 'ECONNREFUSED' }))).toMatchObject({ status: 0, retryable: true });
  });

  it('a connection lost mid-transaction leaves the outcome unknown: not a TransportRejected', () => {
    const lost = Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' });
    expect(smtpFailure(lost)).toBe(lost);
    expect(smtpFailure(lost)).not.toBeInstanceOf(TransportRejected);
  });
});
