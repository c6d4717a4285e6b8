import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, messageIdOf, signatureHeaders } from '../../services/webhooks/signing';
import { RETRY_DELAYS_MS, retryDelayMs, webhookPolicy } from '../../services/webhooks/policy';
import { signingSecrets } from '../../services/webhooks/delivery';
import { WebhookEndpointCreate } from '../../api/schemas/webhookEndpoints';
import { pacer } from '../../services/webhooks/pacer';

describe('signatureHeaders', () => {
  const body = JSON.stringify({ type: 'purchase', timestamp: '2026-01-01T00:00:00.000Z', data: { total: 3 } });

  it('signs so a Standard Webhooks library verifies, and a changed body or id does not', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_/);
    const headers = signatureHeaders('msg_1', body, [secret]);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('3', '4'), headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_2' })).toThrow();
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('carries one space-separated signature per secret, each verifying on its own', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = signatureHeaders('msg_1', body, [a, b]);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(() => new Webhook(a).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(b).verify(body, headers)).not.toThrow();
  });

  it('names a delivery by a stable msg_ id', () => {
    expect(messageIdOf('0b6f3c1e-1111-4222-8333-444455556666')).toBe('msg_0b6f3c1e111142228333444455556666');
  });
});

describe('signingSecrets', () => {
  const now = Date.parse('2026-01-02T00:00:00Z');
  it('adds the previous secret only until its overlap ends', () => {
    const e = { secret: 'new', previous_secret: 'old', previous_secret_expires_at: new Date(now + 1000) };
    expect(signingSecrets(e, now)).toEqual(['new', 'old']);
    expect(signingSecrets(e, now + 1001)).toEqual(['new']);
    expect(signingSecrets({ secret: 'only', previous_secret: null, previous_secret_expires_at: null }, now)).toEqual(['only']);
  });
});

describe('retry schedule', () => {
  it('retries first within a minute, with delays that never shrink', () => {
    expect(retryDelayMs(1, 1)).toBeLessThanOrEqual(60_000);
    for (let n = 2; n < 20; n++) expect(retryDelayMs(n, 1)).toBeGreaterThanOrEqual(retryDelayMs(n - 1, 1));
    expect(retryDelayMs(3, 0.001)).toBe(RETRY_DELAYS_MS[2] * 0.001);
  });

  it('scales every duration with WORKFLOW_TIME_SCALE', () => {
    const p = webhookPolicy({ webhooks: { retryHours: 24, ratePerSecond: 10 }, workflows: { timeScale: 0.5 } });
    expect(p).toMatchObject({ retryWindowMs: 12 * 3600_000, rotationOverlapMs: 12 * 3600_000, disableAfterMs: 2.5 * 24 * 3600_000, ratePerSecond: 10 });
  });
});

describe('event patterns', () => {
  const accepts = (events: string[]) => WebhookEndpointCreate.safeParse({ url: 'https://example.com/h', events }).success;
  it.each([['*'], ['email.*'], ['segment.*'], ['email.delivered'], ['purchase'], ['segment.vip.entry'], ['Signed Up']])('accepts %s', (p) =>
    expect(accepts([p])).toBe(true),
  );
  it.each([['**'], ['email*'], ['*.sent'], ['a.*.b'], [''], ['bad\u0001name']])('refuses %j', (p) => expect(accepts([p])).toBe(false));
});

describe('pacer', () => {
  it('starts requests no closer than 1000 / rate ms apart, on a fake clock', async () => {
    let t = 1_000;
    const starts: number[] = [];
    const pace = pacer(20, { now: () => t, sleep: async (ms) => void (t += ms) });
    for (let i = 0; i < 5; i++) {
      await pace();
      starts.push(t);
    }
    expect(starts).toEqual([1000, 1050, 1100, 1150, 1200]);
    // Idle time is not saved up as a burst.
    t += 10_000;
    await pace();
    const resumed = t;
    await pace();
    expect(t - resumed).toBe(50);
  });
});
