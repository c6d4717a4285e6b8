import { Secret, TOTP } from 'otpauth';
import { matchingStep, recoveryCodeHash } from '../../services/twoFactor';

const secret = new Secret({ size: 20 }).base32;
// The middle of a 30-second step, so ±N steps are exact.
const now = Math.floor(Date.now() / 30_000) * 30_000 + 15_000;
const step = now / 30_000 - 0.5;
const codeAt = (steps: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: now + steps * 30_000 });

describe('matchingStep', () => {
  it('accepts the current time step and the one either side, and says which', () => {
    expect(matchingStep(secret, codeAt(0), now)).toBe(step);
    expect(matchingStep(secret, codeAt(-1), now)).toBe(step - 1);
    expect(matchingStep(secret, codeAt(1), now)).toBe(step + 1);
    expect(matchingStep(secret, ` ${codeAt(0).slice(0, 3)} ${codeAt(0).slice(3)} `, now)).toBe(step);
  });

  it('refuses codes two steps away and anything but six digits', () => {
    for (const s of [-2, 2]) {
      const code = codeAt(s);
      // Skip the one-in-a-million case where a far code equals a near one.
      if (![-1, 0, 1].some((n) => codeAt(n) === code)) expect(matchingStep(secret, code, now)).toBeNull();
    }
    for (const bad of ['', '12345', '1234567', 'abcdef', '12345a']) expect(matchingStep(secret, bad, now)).toBeNull();
  });
});

describe('recovery codes', () => {
  it('hash the same whatever the case, spaces and dashes', () => {
    expect(recoveryCodeHash('abcd-efgh-ijkl-mnop')).toBe(recoveryCodeHash('ABCD EFGH IJKL MNOP'));
    expect(recoveryCodeHash('abcd-efgh-ijkl-mnop')).toBe(recoveryCodeHash('abcdefghijklmnop'));
    expect(recoveryCodeHash('abcd-efgh-ijkl-mnop')).not.toBe(recoveryCodeHash('abcd-efgh-ijkl-mnoq'));
  });
});
