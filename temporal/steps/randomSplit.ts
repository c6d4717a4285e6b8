import type { ConfigOf, StepContext, StepOutcome, Zod } from './types';
import { type SummaryLanguage, summaryWords } from './words';

/**
 * Sends each contact down one of several branches at random, in proportion to the weights. The draw
 * uses the workflow's Math.random, which Temporal seeds per execution: it is made once and a replay
 * draws the same branch.
 */
export const type = 'RANDOM_SPLIT';
/** What people see: the palette's entry and the node's heading (docs/step-types.md). */
export const title = 'Random split';
export const description = 'Sends each contact down one branch at random, by the weights you give.';
export const category = 'Logic';
export const icon = 'arrows-split';
export const summary = (c: { branches: { name: string; weight: number }[] }, _names?: unknown, lang?: SummaryLanguage) =>
  summaryWords(lang).split(c.branches.map((b) => `${b.name} ${b.weight}`).join(' / '));
export const config = (z: Zod) =>
  z.strictObject({
    branches: z
      .array(
        z.strictObject({
          name: z.string().regex(/^[a-z0-9_-]{1,50}$/, 'branch names are 1-50 of a-z, 0-9, _ and -'),
          weight: z.number().int('weight must be a whole number').positive('weight must be positive').max(1_000_000),
        }),
      )
      .min(2, 'a split has 2 to 10 branches')
      .max(10, 'a split has 2 to 10 branches')
      .superRefine((list, ctx) => {
        const seen = new Set<string>();
        list.forEach((b, i) => {
          if (seen.has(b.name)) ctx.addIssue({ code: 'custom', message: `branch ${b.name} is named twice`, path: [i, 'name'] });
          seen.add(b.name);
        });
      }),
  });
const names = (c: ConfigOf<typeof config>) => c.branches.map((b) => b.name);
export const branches = names;
/** For the step table in docs/workflows.md (`npm run docs:steps`). */
export const docs = {
  config: '`{ branches: [{ name, weight }] }` (2–10, names `[a-z0-9_-]`, positive integer weights)',
  notes: "one weighted draw per execution (the workflow's seeded `Math.random`), kept on replay; a branch left open ends the execution there",
};

/** The branch a draw in [0, 1) lands on: each owns a share of the line as wide as its weight. */
export function pick(c: ConfigOf<typeof config>, draw: number): string {
  const total = c.branches.reduce((n, b) => n + b.weight, 0);
  let point = draw * total;
  for (const b of c.branches) {
    if (point < b.weight) return b.name;
    point -= b.weight;
  }
  return c.branches[c.branches.length - 1].name;
}

export async function run(c: ConfigOf<typeof config>, _ctx: StepContext): Promise<StepOutcome> {
  const branch = pick(c, Math.random());
  return { branch, output: { branch } };
}
