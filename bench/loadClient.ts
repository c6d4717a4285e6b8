/**
 * HTTP load from its own process, so the client's work does not share the API's event loop.
 * Usage (from bench scripts): tsx bench/loadClient.ts <url> <authorization> <concurrency> <seconds> <json body with {i}>
 * Prints one JSON line with the LoadResult.
 */
import { runLoad, postJson } from './stack';

async function main() {
  const [url, authorization, concurrency, seconds, template] = process.argv.slice(2);
  const result = await runLoad((i) => postJson(url, JSON.parse(template.replace(/\{i\}/g, String(i % 5000))), { authorization }), Number(concurrency), Number(seconds));
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
