/**
 * HTTP load from its own process, so the client's work does not share the API's event loop.
 * Usage (from bench scripts): tsx bench/loadClient.ts <url> <authorization> <concurrency> <seconds> <json body with {i}>
 * Prints one JSON line with the LoadResult.
 */
import { runLoad, postRaw } from './stack';

async function main() {
  const [url, authorization, concurrency, seconds, template] = process.argv.slice(2);
  // Built before the clock starts: the client's own work should not take CPU from the API.
  const bodies = Array.from({ length: 5000 }, (_, i) => template.replace(/\{i\}/g, String(i)));
  const cpu0 = process.cpuUsage();
  const result = await runLoad((i) => postRaw(url, bodies[i % 5000], { authorization }), Number(concurrency), Number(seconds));
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(`${JSON.stringify({ ...result, clientCpuSeconds: (cpu.user + cpu.system) / 1e6 })}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
