import { guardedFetch, WebhookRefused } from '../httpGuard';
import type { DnsLookup } from '../dns';
import { signatureHeaders } from './signing';

/** Only the status matters; a receiver's long answer is not read past this. */
const MAX_RESPONSE_BYTES = 4 * 1024;
const TIMEOUT_MS = 10_000;

export interface SendTarget {
  url: string;
  secrets: string[];
  resolver: Pick<DnsLookup, 'a' | 'aaaa'>;
  allowPrivate: boolean;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/**
 * One signed POST of a message under the WEBHOOK step's SSRF guard (resolved addresses checked,
 * the connection pinned to the checked one). A 2xx within 10 s is success; redirects are not
 * followed (a 3xx is a failure like any other status).
 */
export async function sendSignedMessage(target: SendTarget, messageId: string, body: string): Promise<SendResult> {
  try {
    const res = await guardedFetch(
      {
        url: target.url,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'svc-webhooks/1', ...signatureHeaders(messageId, body, target.secrets) },
        body,
      },
      { resolver: target.resolver, allowPrivate: target.allowPrivate, maxRedirects: 0, timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES },
    );
    const ok = res.status >= 200 && res.status < 300;
    return { ok, statusCode: res.status, error: ok ? null : `HTTP ${res.status}` };
  } catch (err) {
    if (err instanceof WebhookRefused && /redirects/.test(err.message)) return { ok: false, statusCode: null, error: 'redirect not followed' };
    if (err instanceof WebhookRefused) return { ok: false, statusCode: null, error: `refused: ${err.message}` };
    return { ok: false, statusCode: null, error: (err as Error).message.slice(0, 500) };
  }
}
