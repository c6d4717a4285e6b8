import { z } from 'zod';
import { CONSENT_SOURCES } from '../../lib/consentSources';

/** A consent record's `source`, as the consent and timeline reads answer it. */
export const ConsentSourceOut = z
  .string()
  .describe(
    `where the change came from: ${CONSENT_SOURCES.filter((s) => s !== 'form').join(', ')}, or form:<id> for a signup form; records written before this list may name another`,
  );

/**
 * The sources a consent record names (lib/consentSources.ts), `form` standing for `form:<id>`.
 * api/openapi.ts publishes it as the component `ConsentSources`, a table clients read: the
 * dashboard's words for the sources are typed against it.
 */
export const ConsentSources = z
  .array(z.enum(CONSENT_SOURCES))
  .describe('Where a consent change can come from (the `source` of a consent record; form stands for form:<id>)');
