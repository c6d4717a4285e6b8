/**
 * Provider and SMTP error messages often quote the recipient (`550 5.1.1 <ann@example.com>: unknown
 * user`). Such a message may become an activity's result or failure, which Temporal keeps in the
 * history, where erasure does not reach: the copy that goes there names no address. The email row
 * keeps the full message.
 */
const ADDRESS = /[^\s<>()[\]"',;:@]+@[^\s<>()[\]"',;:@]+\.[^\s<>()[\]"',;:@.]+/g;

export function redactAddresses(message: string): string;
export function redactAddresses(message: string | null | undefined): string | null | undefined;
export function redactAddresses(message: string | null | undefined): string | null | undefined {
  return message == null ? message : message.replace(ADDRESS, '<address>');
}
