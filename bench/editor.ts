/**
 * Block emails (issue 40) against the same content written by hand as email HTML: the worker's CPU
 * per recipient, stage by stage, with the worker's own functions in one process, and how many times
 * MJML compiled.
 *
 *   - compile: the block document is compiled as "Publish" does (services/templateContent
 *     compileContent), once per published version: two versions here, so two compiles;
 *   - per recipient, what a campaign batch does for each one (services/campaignRecipients
 *     renderRecipient): render (Liquid over subject and body, services/render renderTemplate),
 *     tracking (open pixel and click links, services/emailTracking trackedBody), the text part (the
 *     compiled text source rendered by Liquid for blocks; generated from the rendered HTML, as the
 *     renderer does without a text source, for the hand-written one), and the hand-over's share on
 *     the worker (the MIME message built by nodemailer, as the SMTP transport's pool does before
 *     writing to the socket; no network);
 *   - MJML compiles counted by services/emailCompiler compileCount, before and after the recipients.
 *
 * The two kinds alternate in ABBA slices of N recipients (default 2,000) so the JIT and the
 * machine's noise fall on both. Usage: npx tsx bench/editor.ts [N=2000] [rounds=2]
 */
import crypto from 'node:crypto';
import nodemailer from 'nodemailer';
import { compileContent } from '../services/templateContent';
import { compileCount } from '../services/emailCompiler';
import { renderTemplate, renderText } from '../services/render';
import { trackedBody } from '../services/emailTracking';
import { htmlToPlainText } from '../services/plainText';
import { DEFAULT_BRAND } from '../lib/brand';
import type { EmailDocument } from '../lib/emailDocument';

const config = { appUrl: 'https://app.bench.example', trackingUrl: 'https://t.bench.example', jwtSecret: 'bench-secret-bench-secret-bench-secret' };
const SUBJECT = 'News for {{ data.first ?? "you" }}';

/** Heading, text with a variable, button, image, two columns, divider and the footer: the email. */
const DOCUMENT = (version: number): EmailDocument =>
  ({
    version: 1,
    settings: { preheader: 'What is new this month' },
    blocks: [
      { id: 'logo', type: 'image', src: 'https://cdn.bench.example/logo.png', alt: 'Bench Co', width: 120 },
      { id: 'h', type: 'heading', level: 1, text: `Hello {{ data.first ?? "there" }} (v${version})` },
      {
        id: 't',
        type: 'text',
        html: '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. <a href="https://blog.bench.example/post/42">Read the post</a>.</p>'.repeat(
          3,
        ),
      },
      { id: 'b', type: 'button', text: 'Shop the sale', href: 'https://shop.bench.example/spring' },
      {
        id: 'c',
        type: 'columns',
        columns: [
          {
            blocks: [
              { id: 'c1i', type: 'image', src: 'https://cdn.bench.example/a.png', alt: 'Summer hats' },
              { id: 'c1t', type: 'text', html: '<p>Summer hats, now in five colours.</p>' },
            ],
          },
          {
            blocks: [
              { id: 'c2i', type: 'image', src: 'https://cdn.bench.example/b.png', alt: 'Beach towels' },
              { id: 'c2t', type: 'text', html: '<p>Beach towels: <a href="https://shop.bench.example/towels">see them</a>.</p>' },
            ],
          },
        ],
      },
      { id: 'd', type: 'divider' },
      { id: 'f', type: 'footer' },
    ],
  }) as EmailDocument;

/** The same email as a careful person writes it by hand: tables, inline styles, a stacking media query. */
const HANDWRITTEN = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<style>@media only screen and (max-width:480px){.col{display:block!important;width:100%!important}}</style></head>
<body style="margin:0;background:#f4f4f5;font-family:Helvetica,Arial,sans-serif;color:#18181b">
<div style="display:none;max-height:0;overflow:hidden">What is new this month</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f4f5"><tr><td align="center">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" style="background:#ffffff;max-width:600px">
<tr><td align="center" style="padding:16px 24px"><img src="https://cdn.bench.example/logo.png" alt="Bench Co" width="120" style="display:block;border:0"></td></tr>
<tr><td style="padding:16px 24px"><h1 style="margin:0;font-size:28px">Hello {{ data.first ?? "there" }} (v2)</h1></td></tr>
<tr><td style="padding:16px 24px;font-size:16px;line-height:1.5">${'<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. <a href="https://blog.bench.example/post/42" style="color:#2563eb">Read the post</a>.</p>'.repeat(3)}</td></tr>
<tr><td align="center" style="padding:16px 24px"><a href="https://shop.bench.example/spring" style="display:inline-block;background:#2563eb;color:#ffffff;padding:12px 24px;border-radius:4px;text-decoration:none">Shop the sale</a></td></tr>
<tr><td style="padding:16px 24px"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr>
<td class="col" width="50%" valign="top" style="padding:0 8px"><img src="https://cdn.bench.example/a.png" alt="Summer hats" width="260" style="display:block;border:0;max-width:100%"><p>Summer hats, now in five colours.</p></td>
<td class="col" width="50%" valign="top" style="padding:0 8px"><img src="https://cdn.bench.example/b.png" alt="Beach towels" width="260" style="display:block;border:0;max-width:100%"><p>Beach towels: <a href="https://shop.bench.example/towels" style="color:#2563eb">see them</a>.</p></td>
</tr></table></td></tr>
<tr><td style="padding:16px 24px"><hr style="border:0;border-top:1px solid #e4e4e7"></td></tr>
<tr><td align="center" style="padding:16px 24px;font-size:12px;color:#71717a">Bench Co<br>1 Bench Street, Benchville<br><a href="{{ unsubscribeUrl }}" style="color:#71717a">Unsubscribe</a> · <a href="{{ manageUrl }}" style="color:#71717a">Manage preferences</a></td></tr>
</table></td></tr></table></body></html>`;

type Stage = 'render' | 'tracking' | 'text' | 'handOver';
const STAGES: Stage[] = ['render', 'tracking', 'text', 'handOver'];

interface Content {
  name: string;
  body: string;
  /** The text part's Liquid source; null: generated from each rendered body. */
  text: string | null;
}

const mailer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

const variablesOf = (i: number) => {
  const id = `cnt_${i.toString(36)}`;
  return {
    data: { first: `Reader${i}` },
    email: `reader${i}@bench.example`,
    unsubscribeUrl: `${config.appUrl}/unsubscribe/${id}`,
    manageUrl: `${config.appUrl}/manage/${id}`,
  };
};

/** CPU time (user + system) in µs spent in `fn`: the worker's cost, whatever else the machine runs. */
async function cpu<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = process.cpuUsage();
  const out = await fn();
  const used = process.cpuUsage(start);
  return [out, used.user + used.system];
}

/**
 * N recipients of `c`, stage by stage: each stage runs for the whole slice and is timed as a whole
 * (the kernel accounts CPU time in ticks, too coarse for one recipient); µs per recipient by stage.
 */
async function slice(c: Content, n: number, offset: number): Promise<Record<Stage, number>> {
  const recipients = Array.from({ length: n }, (_, i) => variablesOf(offset + i));
  // The renderer's call with an empty text source: subject and body only (the text part is timed apart).
  const [rendered, render] = await cpu(async () => {
    const out = [];
    for (const v of recipients) out.push(await renderTemplate({ subject: SUBJECT, body: c.body, text: '' }, v));
    return out;
  });
  const [tracked, tracking] = await cpu(async () => rendered.map((r) => trackedBody(config, crypto.randomUUID(), r.body, { opens: true, clicks: true })));
  const [texts, text] = await cpu(async () => {
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(c.text === null ? htmlToPlainText(rendered[i].body) : await renderText(c.text, recipients[i]));
    return out;
  });
  const [, handOver] = await cpu(async () => {
    for (let i = 0; i < n; i++) {
      await mailer.sendMail({
        from: 'news@bench.example',
        to: recipients[i].email,
        subject: rendered[i].subject,
        html: tracked[i].body,
        text: texts[i],
        headers: { 'List-Unsubscribe': `<${recipients[i].unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      });
    }
  });
  return { render: render / n, tracking: tracking / n, text: text / n, handOver: handOver / n };
}

async function main() {
  const n = Number(process.argv[2] ?? 2000);
  const rounds = Number(process.argv[3] ?? 2);
  const before = compileCount();
  // Two published versions: "Publish" compiles each once (the second is the one sent).
  await compileContent({ editor: 'blocks', subject: SUBJECT, document: DOCUMENT(1) }, DEFAULT_BRAND);
  const published = await compileContent({ editor: 'blocks', subject: SUBJECT, document: DOCUMENT(2) }, DEFAULT_BRAND);
  const compiledAtPublish = compileCount() - before;
  const blocks: Content = { name: 'blocks', body: published.body, text: published.text ?? published.compiledText };
  const hand: Content = { name: 'hand-written HTML', body: HANDWRITTEN, text: null };

  // Warm-up: Liquid's parse cache, the JIT, nodemailer's modules.
  await slice(blocks, 200, 0);
  await slice(hand, 200, 0);
  const sums = new Map<string, Record<Stage, number>>([
    [blocks.name, { render: 0, tracking: 0, text: 0, handOver: 0 }],
    [hand.name, { render: 0, tracking: 0, text: 0, handOver: 0 }],
  ]);
  let offset = 0;
  for (let round = 0; round < rounds; round++) {
    for (const c of [blocks, hand, hand, blocks]) {
      const got = await slice(c, n, offset);
      offset += n;
      const sum = sums.get(c.name)!;
      for (const s of STAGES) sum[s] += got[s] / (2 * rounds);
    }
  }
  const recipients = offset;
  const compiledPerRecipient = compileCount() - before - compiledAtPublish;

  const kb = (s: string) => `${(Buffer.byteLength(s) / 1024).toFixed(1)} KB`;
  const totalOf = (r: Record<Stage, number>) => STAGES.reduce((a, s) => a + r[s], 0);
  const b = sums.get(blocks.name)!;
  const h = sums.get(hand.name)!;
  console.log(`editor bench: ${rounds} ABBA round(s) of ${n} recipients per slice, ${recipients} recipients in all, CPU µs per recipient`);
  console.log(`  stored body: blocks ${kb(blocks.body)} (MJML output), hand-written ${kb(hand.body)}`);
  console.log(`  ${'stage'.padEnd(12)} ${'blocks'.padStart(8)} ${'hand'.padStart(8)} ${'ratio'.padStart(7)}`);
  for (const s of STAGES)
    console.log(`  ${s.padEnd(12)} ${b[s].toFixed(1).padStart(8)} ${h[s].toFixed(1).padStart(8)} ${(b[s] / h[s]).toFixed(2).padStart(7)}`);
  console.log(
    `  ${'total'.padEnd(12)} ${totalOf(b).toFixed(1).padStart(8)} ${totalOf(h).toFixed(1).padStart(8)} ${(totalOf(b) / totalOf(h)).toFixed(2).padStart(7)}   (target <= 1.5)`,
  );
  console.log(`  MJML compiles: ${compiledAtPublish} for 2 published versions, ${compiledPerRecipient} during ${recipients} recipients`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
