import { cleanup } from './globalSetup';

export default async function globalTeardown() {
  await cleanup(globalThis.__svcTestRun);
}
