import type { ContactRow } from '../db/contactReaders';
import { identityVariables } from '../lib/contactData';

/**
 * What Liquid sees in SEND_EMAIL and WEBHOOK: contact data, the execution context (also as `context`), the contact's ids.
 * Apart from services/executions.ts because the steps' activities need it and that file reads the step registry,
 * which imports those steps (scripts/importCycles.ts).
 */
export function executionVariables(contact: ContactRow, context: Record<string, unknown>): Record<string, unknown> {
  return {
    ...contact.data,
    ...context,
    context,
    ...identityVariables(contact),
  };
}
