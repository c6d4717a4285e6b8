import {
  renderTemplate,
  renderText,
  checkTemplate,
  RenderError,
  RENDER_LIMITS,
  RenderBudgetExceeded,
  RENDER_BUDGET_MS,
  batchRenderer,
  withinBudget,
  cpuClockMs,
} from '../../services/render';

/** Renders `source` as the body (HTML) and returns the output. */
const body = async (source: string, variables: Record<string, unknown> = {}) => (await renderTemplate({ subject: 's', body: source }, variables)).body;
const subject = async (source: string, variables: Record<string, unknown> = {}) => (await renderTemplate({ subject: source, body: 'b' }, variables)).subject;

async function renderError(source: string): Promise<RenderError> {
  const err = await renderTemplate({ subject: 's', body: source }, {}).then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(RenderError);
  return err;
}

describe('template variables', () => {
  it('renders names, nested paths, and the same values under data', async () => {
    const vars = { name: 'Ann', a: { b: 'deep' }, 'first name': 'Annie' };
    expect(await body('{{name}}|{{ a.b }}|{{ data.name }}|{{data["first name"]}}', vars)).toBe('Ann|deep|Ann|Annie');
  });

  it('reads names with spaces as one field, in the head and after ??, with filters', async () => {
    const vars = { 'first name': 'annie', first: 'WRONG' };
    expect(await body('{{first name}}|{{ first name | upcase }}|{{ nick ?? first name }}', vars)).toBe('annie|ANNIE|annie');
  });

  it('keeps Liquid expressions that only look like names with spaces', async () => {
    expect(await body('{{ a and b }}|{{ a or c }}', { a: true, b: false, c: true })).toBe('false|true');
  });

  it('uses the ?? fallback only for missing and null values', async () => {
    const vars = { nothing: null, empty: '', zero: 0, no: false };
    const out = await body('[{{missing ?? "friend"}}][{{nothing ?? "friend"}}][{{empty ?? "friend"}}][{{zero ?? "friend"}}][{{no ?? "friend"}}]', vars);
    expect(out).toBe('[friend][friend][][0][false]');
  });

  it('chains ?? with filters and other ??', async () => {
    expect(await body('{{ name ?? "friend" | upcase }}|{{ a ?? b ?? "c" }}|{{ a ?? b }}', { b: 'B' })).toBe('FRIEND|B|B');
  });

  it('leaves ?? and spaced names inside strings and raw blocks alone', async () => {
    expect(await body('{{ "a ?? b" }}|{% raw %}{{ first name }}{% endraw %}|{{ "x|y" | size }}', {})).toBe('a ?? b|{{ first name }}|3');
  });

  it('supports conditionals, loops, assignment and filters', async () => {
    const src =
      '{% if plan == "pro" %}Pro{% else %}Free{% endif %}:{% for item in items %}{{ forloop.index }}={{ item.name | capitalize }};{% endfor %}' +
      '{% assign n = items | size %}{{ n | plus: 1 }}{% unless vip %}!{% endunless %}';
    expect(await body(src, { plan: 'pro', items: [{ name: 'apple' }, { name: 'pear' }] })).toBe('Pro:1=Apple;2=Pear;3!');
  });

  it('renders the subscription links unharmed', async () => {
    const unsubscribeUrl = 'http://localhost:3000/unsubscribe/eyJhIjoxfQ.c2ln-_x';
    expect(await body('<a href="{{unsubscribeUrl}}">stop</a>', { unsubscribeUrl })).toBe(`<a href="${unsubscribeUrl}">stop</a>`);
  });
});

describe('escaping', () => {
  it('HTML-escapes variables in the body, once, unless they end in | raw', async () => {
    const vars = { x: '<script>alert("x")</script>' };
    expect(await body('{{ x }}', vars)).toBe('&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;');
    expect(await body('{{ x | escape }}', vars)).toBe('&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;');
    expect(await body('{{ x | raw }}', vars)).toBe(vars.x);
  });

  it('does not escape the subject and flattens line breaks in it', async () => {
    expect(await subject('Hi {{ x }} {{ y }}', { x: 'Tom & <Jerry>', y: 'line\r\nbreak' })).toBe('Hi Tom & <Jerry> line break');
  });
});

describe('errors and limits', () => {
  it('checkTemplate reports parse problems with their position and accepts valid sources', () => {
    expect(checkTemplate('Hello {{ name ?? "x" }} {% if a %}y{% endif %}')).toBeNull();
    expect(checkTemplate('{{ name | nosuchfilter }}')).toMatch(/undefined filter: nosuchfilter.*line:1, col:1/);
    expect(checkTemplate('ok\n{% if %}')).toMatch(/line:2/);
    expect(checkTemplate('{{ name')).toMatch(/not closed/);
  });

  it('refuses includes: there is no filesystem to read from', async () => {
    expect(checkTemplate('{% include "/etc/passwd" %}')).toMatch(/tag "include" not found/);
    expect(checkTemplate('{% render "x" %}')).toMatch(/tag "render" not found/);
  });

  it('names the failing part in a RenderError', async () => {
    const err = await renderError('{{ x | nosuchfilter }}');
    expect(err.message).toMatch(/^body: undefined filter/);
    await expect(renderTemplate({ subject: '{% if %}', body: '' }, {})).rejects.toThrow(/^subject: /);
  });

  it('hides prototype properties', async () => {
    expect(await body('[{{ x.constructor }}][{{ x.__proto__ }}][{{ x.size }}]', { x: 'abc' })).toBe('[][][3]');
  });

  it('stops a huge range at once (memory bound)', async () => {
    const started = cpuClockMs();
    const err = await renderError('{% for i in (1..100000000) %}x{% endfor %}');
    expect(err.message).toMatch(/memory/);
    // CPU time (services/render cpuClockMs): a saturated machine stretches wall time, not work.
    expect(cpuClockMs() - started).toBeLessThan(1000);
  });

  it('stops endless nested loops at the time bound', async () => {
    const started = Date.now();
    const err = await renderError('{% for i in (1..100000) %}{% for j in (1..100000) %}{% endfor %}{% endfor %}');
    expect(err.message).toMatch(/render budget/);
    expect(Date.now() - started).toBeLessThan(RENDER_LIMITS.renderLimit + 2000);
  });

  it('stops self-doubling strings', async () => {
    const err = await renderError('{% assign s = "x" %}{% for i in (1..64) %}{% assign s = s | append: s %}{% endfor %}{{ s }}');
    expect(err.message).toMatch(/memory/);
  });

  it('fails fast on deep nesting and oversized sources', async () => {
    const started = cpuClockMs();
    await renderError(`${'{% if true %}'.repeat(20000)}x${'{% endif %}'.repeat(20000)}`);
    await renderError('x'.repeat(1_000_001));
    expect(cpuClockMs() - started).toBeLessThan(3000);
  });

  it('preprocesses hostile outputs in linear time', async () => {
    const started = cpuClockMs();
    await body(`{{${' a'.repeat(200_000)} }}`);
    await body(`{{ "${'??|'.repeat(100_000)}" }}`);
    await renderError('{{ a ??'.repeat(100_000));
    expect(cpuClockMs() - started).toBeLessThan(3000);
  });
});

describe('renderText', () => {
  it('keeps line breaks and does not HTML-escape, for webhook bodies', async () => {
    const out = await renderText('{"name": "{{ name }}",\n"plan": "{{ plan ?? "free" }}"}', { name: 'A & <B>' });
    expect(out).toBe('{"name": "A & <B>",\n"plan": "free"}');
  });
});

describe('render budget', () => {
  // 100,000 iterations are within the memory bound; walking them takes far longer than the budget.
  const slow = '{% for i in (1..100000) %}{% for j in (1..100) %}x{% endfor %}{% endfor %}';

  it('fails a render over its budget with an error naming the render budget', async () => {
    const err = await renderTemplate({ subject: 'Hi', body: slow }, {}).then(
      () => null,
      (e) => e,
    );
    expect(err).toBeInstanceOf(RenderBudgetExceeded);
    expect(err).toBeInstanceOf(RenderError);
    expect(err.message).toBe(`body: rendering takes longer than the render budget of ${RENDER_BUDGET_MS} ms`);
    await expect(renderTemplate({ subject: slow, body: '' }, {})).rejects.toThrow(/^subject: rendering takes longer than the render budget/);
    await expect(renderText(slow, {}, 'body')).rejects.toThrow(RenderBudgetExceeded);
  });

  it('a render stopped midway (a busy machine) gets one more try with four budgets of room; a second overrun fails', () => {
    const budgets: number[] = [];
    const stalledOnce = (deadline: number) => {
      budgets.push(Math.round(deadline - performance.now()));
      if (budgets.length === 1) throw new RenderBudgetExceeded('body: rendering takes longer than the render budget of 50 ms');
      return 'rendered';
    };
    expect(withinBudget(50, stalledOnce)).toBe('rendered');
    expect(budgets[0]).toBeLessThanOrEqual(50);
    expect(budgets[1]).toBeGreaterThan(150);
    expect(budgets[1]).toBeLessThanOrEqual(200);
    const alwaysOver = () => {
      throw new RenderBudgetExceeded('body: rendering takes longer than the render budget of 50 ms');
    };
    expect(() => withinBudget(50, alwaysOver)).toThrow(RenderBudgetExceeded);
  });

  it('names the budget when a range is too large to build', async () => {
    await expect(renderTemplate({ subject: '', body: '{% for i in (1..9999999) %}x{% endfor %}' }, {})).rejects.toThrow(
      /^body: rendering needs more memory than the render budget allows/,
    );
  });

  it('a batch fails later recipients of an over-budget template without rendering them again', async () => {
    // A clock on which every render takes 25 ms (read at its start and its end).
    let clock = 0;
    const renderer = batchRenderer({ now: () => (clock += 25) });
    // Slow on its first turn and again on a later one (two attempts of 25 ms each on this clock).
    await expect(renderer.render({ subject: 'Hi', body: slow }, {})).rejects.toThrow(RenderBudgetExceeded);
    expect(renderer.spentMs).toBe(50);
    // Known over budget: refused at once with the same message, and no render time is spent on it.
    await expect(renderer.render({ subject: 'Hi', body: slow }, {})).rejects.toThrow(
      `body: rendering takes longer than the render budget of ${RENDER_BUDGET_MS} ms`,
    );
    expect(renderer.spentMs).toBe(50);
    // Another template of the batch still renders.
    await expect(renderer.render({ subject: 'Hi {{ name }}', body: '<p>ok</p>' }, { name: 'Ada' })).resolves.toEqual({
      subject: 'Hi Ada',
      body: '<p>ok</p>',
      text: 'ok',
    });
  });

  it('a batch stops rendering once its render budget is spent', async () => {
    // A clock on which every render takes 50 ms.
    let clock = 0;
    const renderer = batchRenderer({ batchBudgetMs: 100, now: () => (clock += 50) });
    const template = { subject: 'Hi {{ name }}', body: 'ok' };
    await expect(renderer.render(template, { name: 'a' })).resolves.toEqual({ subject: 'Hi a', body: 'ok', text: 'ok' });
    await expect(renderer.render(template, { name: 'b' })).resolves.toEqual({ subject: 'Hi b', body: 'ok', text: 'ok' });
    await expect(renderer.render(template, { name: 'c' })).rejects.toThrow("the batch's render budget of 100 ms is spent");
  });

  it("one stall of the process does not spend a batch's budget: each render is charged at most what one render may take", async () => {
    // Quick renders (0.5 ms on this clock), except one during which the process stood still for 5 s.
    let clock = 0;
    let reads = 0;
    const renderer = batchRenderer({ batchBudgetMs: 2_000, now: () => (clock += ++reads === 20 ? 5_000 : 0.5) });
    const template = { subject: 'Hi {{ name }}', body: 'ok' };
    for (let i = 0; i < 1_000; i++) await expect(renderer.render(template, { name: `n${i}` })).resolves.toMatchObject({ subject: `Hi n${i}` });
    // 999 renders of 0.5 ms and the stalled one charged at its budget and withinBudget's retry, not 5 s.
    expect(renderer.spentMs).toBe(999 * 0.5 + RENDER_BUDGET_MS * 5);
  });

  it("the batch budget counts the process's CPU time: renders slowed by waiting (a busy machine) do not spend it", async () => {
    // Each render waits 30 ms without using the CPU (as when the machine runs other processes): ten of
    // them are 300 ms of wall time against a 100 ms batch budget, and almost no CPU.
    const blocked = new Int32Array(new SharedArrayBuffer(4));
    const waiting = (name: string) => ({
      get name() {
        Atomics.wait(blocked, 0, 0, 30);
        return name;
      },
    });
    const renderer = batchRenderer({ batchBudgetMs: 100 });
    for (let i = 0; i < 10; i++)
      await expect(renderer.render({ subject: 'Hi {{ name }}', body: 'ok' }, waiting(`n${i}`))).resolves.toMatchObject({ subject: `Hi n${i}` });
    expect(renderer.spentMs).toBeLessThan(100);
  });

  it('a template that ran out of time once renders on a later turn, and the batch goes on rendering it', async () => {
    // A variable whose first two reads stall past the render budget and then withinBudget's retry, as
    // long GC pauses would; on a later turn it reads at once.
    let stalls = 2;
    const stallingName = {
      get name() {
        if (stalls-- > 0) {
          const until = performance.now() + RENDER_BUDGET_MS * 6;
          while (performance.now() < until);
        }
        return 'Ada';
      },
    };
    const renderer = batchRenderer();
    const template = { subject: 'Hi {{ name }}', body: '<p>{{ name }}</p>' };
    await expect(renderer.render(template, stallingName)).resolves.toMatchObject({ subject: 'Hi Ada' });
    await expect(renderer.render(template, { name: 'Bob' })).resolves.toMatchObject({ subject: 'Hi Bob' });
  });

  it('yields to the event loop between recipients, so other work runs during a slow batch', async () => {
    const order: string[] = [];
    setTimeout(() => order.push('other work'), 0);
    const renderer = batchRenderer();
    // Three different slow templates: each is rendered (and runs out its budget) on its own turn.
    for (let i = 0; i < 3; i++) await renderer.render({ subject: `${i}`, body: slow }, {}).catch(() => order.push(`recipient ${i}`));
    expect(order.indexOf('other work')).toBeGreaterThan(-1);
    expect(order.indexOf('other work')).toBeLessThan(order.indexOf('recipient 2'));
  });
});
