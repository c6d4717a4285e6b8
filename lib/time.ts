/** A timestamp as the API shows it (ISO 8601 UTC), null kept null. */
export const iso = (d: Date | string | null | undefined): string | null => (d === null || d === undefined ? null : new Date(d).toISOString());
