import fs from 'node:fs';
import path from 'node:path';
import { keys } from '../../web/src/api/queryKeys';

/**
 * The dashboard's react-query keys are built by one factory (web/src/api/queryKeys.ts), so a query
 * and the mutation that refreshes it cannot drift apart (issue 42 §6).
 */
const WEB = path.join(__dirname, '../../web/src');

function sources(dir = WEB): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? sources(path.join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [path.join(dir, d.name)] : []));
}

/** Places a key is written: a query's or a filter's `queryKey:`, setQueryData/getQueryData, or a `const key = [...]` beside them. */
const HAND_WRITTEN = [
  /queryKey:\s*\[/,
  /(set|get)QueryData(<[^>]*>)?\(\s*\[/,
  /(invalidate|remove|refetch|cancel|reset)Queries\(\s*\[/,
  /\b\w*[kK]ey\s*=\s*\[\s*'/,
];

/** "file:line: text" for each key spelled by hand outside the factory. */
function handWrittenKeys(): string[] {
  return sources()
    .filter((f) => !f.endsWith(path.join('api', 'queryKeys.ts')))
    .flatMap((f) =>
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => (HAND_WRITTEN.some((re) => re.test(line)) ? [`${path.relative(WEB, f)}:${i + 1}: ${line.trim()}`] : [])),
    );
}

const startsWith = (key: readonly unknown[], root: readonly unknown[]) => root.every((part, i) => key[i] === part);

describe('query keys', () => {
  test('no key is spelled by hand in web/src', () => {
    expect(handWrittenKeys()).toEqual([]);
  });

  test('the check sees a hand-written key', () => {
    const line = "  const q = useQuery({ queryKey: ['campaigns', projectId], queryFn });";
    expect(HAND_WRITTEN.some((re) => re.test(line))).toBe(true);
    expect(HAND_WRITTEN.some((re) => re.test("qc.setQueryData(['me'], me)"))).toBe(true);
    expect(HAND_WRITTEN.some((re) => re.test('useQuery({ queryKey: keys.campaigns.all(projectId) })'))).toBe(false);
  });

  // Each resource's lists and pages sit under its root, so invalidating the root refreshes them all.
  test.each([
    ['contacts', keys.contacts.all('p'), [keys.contacts.search('p', {}, 'email', null), keys.contacts.picker('p', 'a')]],
    ['campaigns', keys.campaigns.all('p'), [keys.campaigns.list('p', '', null, 1)]],
    ['templates', keys.templates.all('p'), [keys.templates.list('p', '', null, 1), keys.templates.picker('p')]],
    ['segment members', keys.segments.members('p', 's'), [keys.segments.membersPage('p', 's', 2)]],
    ['forms', keys.forms.all('p'), [keys.forms.one('p', 'f')]],
    ['workflows', keys.workflows.all('p'), [keys.workflows.list('p', 1, '')]],
    ['workflow', keys.workflows.one('p', 'w'), [keys.workflows.versions('p', 'w', true)]],
    [
      'executions',
      keys.executions.all('p', 'w'),
      [keys.executions.list('p', 'w', null, 1, ''), keys.executions.count('p', 'w', 'running'), keys.executions.one('p', 'w', 'e')],
    ],
    ['webhook deliveries', keys.webhooks.deliveries('p', 'h'), [keys.webhooks.deliveriesPage('p', 'h', null, null)]],
    ['suppressions', keys.suppressions.all('p'), [keys.suppressions.list('p', '', null, null)]],
    ['inbound', keys.inbound.all('p'), [keys.inbound.list('p', 'reply', null), keys.inbound.one('p', 'm')]],
    ['events', keys.events.all('p'), [keys.events.list('p', 'signup')]],
    ['event names', keys.events.names('p'), [keys.events.namesSince('p', 30)]],
  ])('%s: every list key starts with the root', (_name, root, lists) => {
    for (const key of lists) expect(startsWith(key, root)).toBe(true);
  });

  // A detail key has its own root per project (['campaign', p, id]), apart from the list's (['campaigns', p]),
  // as before the factory: saving one row does not refetch every list.
  test.each([
    ['contact', keys.contacts.one('p', 'c'), ['contact', 'p']],
    ['campaign', keys.campaigns.one('p', 'c'), ['campaign', 'p']],
    ['template', keys.templates.one('p', 't'), ['template', 'p']],
    ['segment', keys.segments.one('p', 's'), ['segment', 'p']],
    ['workflow', keys.workflows.one('p', 'w'), ['workflow', 'p']],
  ])('%s: the detail key starts with its root and ends with the id', (_name, key, root) => {
    expect(startsWith(key, root)).toBe(true);
    expect(key).toHaveLength(root.length + 1);
  });

  test('keys of different projects never match each other', () => {
    expect(startsWith(keys.contacts.search('b', {}, 'email', null), keys.contacts.all('a'))).toBe(false);
  });
});
