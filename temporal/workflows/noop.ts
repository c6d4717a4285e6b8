/** Does nothing: bench/workflows.ts measures the floor of starting workflows on a server with it. */
export async function noop(): Promise<void> {}
