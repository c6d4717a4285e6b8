import { allRoutes } from '../../api/routes';
import { AUDIT_EXEMPT, auditCoverageProblems } from '../../api/auditExempt';

/**
 * Every route that changes state writes an audit entry or is exempt by name (docs/privacy.md "Audit
 * log"). The runtime half — a route that declares `audit` really commits an entry on each 2xx — is
 * api/router.ts checkAudited, on in every integration test.
 */
describe('audit coverage of the route table', () => {
  it('every write route declares its audit action or is on the exempt list, and never both', () => {
    expect(auditCoverageProblems(allRoutes)).toEqual([]);
  });

  it('the exempt list stays short and every name on it is a route', () => {
    const writes = allRoutes.filter((r) => r.method !== 'get').length;
    expect(AUDIT_EXEMPT.size).toBeLessThan(writes);
  });

  it('the security writes the review named are audited, not exempt', () => {
    const declared = (method: string, path: string) => allRoutes.find((r) => r.method === method && r.path === path)?.audit;
    for (const [m, p] of [
      ['post', '/webhook-endpoints'],
      ['patch', '/webhook-endpoints/:id'],
      ['post', '/webhook-endpoints/:id/rotate-secret'],
      ['delete', '/webhook-endpoints/:id'],
      ['post', '/suppressions'],
      ['delete', '/suppressions/:email'],
      ['post', '/contacts/bulk-subscribe'],
      ['post', '/contacts/bulk-unsubscribe'],
      ['post', '/contacts/bulk-delete'],
      ['delete', '/contacts/fields/:field'],
      ['delete', '/events/:eventName'],
      ['put', '/users/@me/projects/:id/billing-limits'],
      ['post', '/topics'],
      ['patch', '/topics/:id'],
      ['delete', '/topics/:id'],
    ])
      expect([m, p, declared(m, p)]).toEqual([m, p, expect.anything()]);
  });

  describe('the check itself', () => {
    const none = new Map<string, string>();
    it('fails a write route with neither an audit action nor an exemption', () => {
      expect(auditCoverageProblems([{ method: 'post', path: '/things' }], none)).toEqual([
        'POST /things changes state but declares no audit action and is not on the exempt list (api/auditExempt.ts)',
      ]);
      expect(auditCoverageProblems([{ method: 'delete', path: '/things/:id', audit: [] }], none)).toHaveLength(1);
    });
    it('passes a declared route and an exempt one; reads need neither', () => {
      const exempt = new Map([['POST /v1/thing', 'traffic']]);
      expect(
        auditCoverageProblems(
          [
            { method: 'post', path: '/things', audit: 'thing.create' },
            { method: 'post', path: '/v1/thing' },
            { method: 'get', path: '/things' },
          ],
          exempt,
        ),
      ).toEqual([]);
    });
    it('fails a route both declared and exempt, a stale exempt name, and a role without an action', () => {
      const exempt = new Map([
        ['POST /things', 'x'],
        ['POST /gone', 'y'],
      ]);
      expect(
        auditCoverageProblems(
          [
            { method: 'post', path: '/things', audit: 'thing.create' },
            { method: 'post', path: '/guarded', role: 'webhooks.manage' },
          ],
          exempt,
        ),
      ).toEqual([
        'POST /things declares audit and is on the exempt list ("x"): remove one',
        'POST /guarded declares a role but no audit action for its denials to name',
        'POST /guarded changes state but declares no audit action and is not on the exempt list (api/auditExempt.ts)',
        'POST /gone is on the exempt list but no write route has that name',
      ]);
    });
  });
});
