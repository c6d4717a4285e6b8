/** `%term%` for ILIKE with the term taken literally: LIKE's own wildcards in it are escaped. */
export const containsPattern = (term: string) => `%${term.replace(/[\\%_]/g, '\\$&')}%`;
