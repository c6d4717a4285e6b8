import { Client, Connection } from '@temporalio/client';
import type { Config } from '../lib/config';

/** The API's handle on Temporal: one lazily opened connection per process. */
export interface TemporalGateway {
  client(): Promise<Client>;
  connection(): Promise<Connection>;
  taskQueue: string;
  namespace: string;
  health(): Promise<boolean>;
  close(): Promise<void>;
}

export function temporalAddress(config: Config): string {
  return config.temporal.address ?? '127.0.0.1:7233';
}

export function createTemporalGateway(config: Config, address = temporalAddress(config)): TemporalGateway {
  let connecting: Promise<Connection> | null = null;
  let client: Client | null = null;
  const connection = () => {
    if (!connecting) {
      connecting = Connection.connect({ address }).catch((err) => {
        // A failed connect is retried by the next caller instead of being cached forever.
        connecting = null;
        throw err;
      });
    }
    return connecting;
  };
  return {
    taskQueue: config.temporal.taskQueue,
    namespace: config.temporal.namespace,
    connection,
    async client() {
      if (!client) client = new Client({ connection: await connection(), namespace: config.temporal.namespace });
      return client;
    },
    async health() {
      try {
        const conn = await connection();
        await conn.workflowService.getSystemInfo({}, );
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (connecting) {
        const conn = await connecting.catch(() => null);
        await conn?.close();
      }
      connecting = null;
      client = null;
    },
  };
}
