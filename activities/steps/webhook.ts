import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityDeps } from '../deps';
import { createResolver } from '../../services/dns';
import { renderText, RenderError } from '../../services/render';
import { deterministicUuid } from '../../lib/ids';
import { executionVariables } from '../../services/executionVariables';
import { findContact } from '../../db/contactReaders';
import { executionContext, recordStepResult } from '../../db/executions';
import { guardedFetch, GuardedResponse, WebhookRefused } from '../../services/httpGuard';
import type { config as WebhookConfig } from '../../temporal/steps/webhook';
import type { ConfigOf } from '../../temporal/steps/types';

// ───────────────────────────── activity ─────────────────────────────

export interface WebhookResult {
  status: number;
  /** The response parsed as JSON; null when it is not JSON (or was cut at the size limit). */
  body: unknown;
  truncated?: boolean;
}

function parseJson(res: GuardedResponse): unknown {
  if (res.truncated || res.body.length === 0) return null;
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return null;
  }
}

/** Tests only: see GuardOptions. */
export interface WebhookActivityOptions {
  allowAddress?: (ip: string) => boolean;
  allowPort?: (port: number) => boolean;
}

export function webhookActivities(deps: ActivityDeps, options: WebhookActivityOptions = {}) {
  const resolver = createResolver(deps.config);
  return {
    async callWebhook(input: {
      projectId: string;
      contactId: string;
      /** With `seq`, names this step's call: retries carry the same Idempotency-Key. */
      executionId: string;
      seq: number;
      config: ConfigOf<typeof WebhookConfig>;
      /** Only in inputs scheduled before the context stayed in Postgres; the row is read instead. */
      context?: Record<string, unknown>;
    }): Promise<Pick<WebhookResult, 'status' | 'truncated'>> {
      const { config } = input;
      let body: string | undefined;
      if (config.body !== undefined && config.method !== 'GET') {
        const contact = await findContact(deps.knex, input.projectId, input.contactId);
        if (!contact) throw ApplicationFailure.nonRetryable('the contact no longer exists', 'ContactGone');
        try {
          // Rendered as plain text (the subject channel): a JSON body must not be HTML-escaped.
          body = await renderText(config.body, executionVariables(contact, await executionContext(deps.knex, input.executionId)), 'body');
        } catch (err) {
          if (err instanceof RenderError) throw ApplicationFailure.nonRetryable(`body: ${err.message}`, 'StepConfigError');
          throw err;
        }
      }
      // A retry after a timeout may repeat a request the receiver already took: the key lets it tell.
      const headers: Record<string, string> = {
        'user-agent': 'svc-webhook/1',
        'idempotency-key': deterministicUuid('webhook', input.executionId, String(input.seq)),
        ...config.headers,
      };
      if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
      let webhook: WebhookResult;
      try {
        const res = await guardedFetch(
          { url: config.url, method: config.method, headers, body },
          { resolver, allowPrivate: deps.config.webhookAllowPrivate, allowAddress: options.allowAddress, allowPort: options.allowPort },
        );
        webhook = { status: res.status, body: parseJson(res), ...(res.truncated ? { truncated: true } : {}) };
      } catch (err) {
        if (err instanceof WebhookRefused) throw ApplicationFailure.nonRetryable(`refused: ${err.message}`, 'WebhookRefused');
        throw new Error(`webhook request to ${new URL(config.url).host} failed: ${(err as Error).message}`);
      }
      // Stored here, not returned: the answer may echo the contact's data, and results enter the history.
      await recordStepResult(deps.knex, input.executionId, input.seq, { contextPatch: { webhook }, output: webhook });
      return { status: webhook.status, ...(webhook.truncated ? { truncated: true } : {}) };
    },
  };
}
