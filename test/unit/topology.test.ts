import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ENV_VARIABLES } from '../../lib/config';
import {
  APP_SERVICES,
  CLUSTER_BIND_HOST,
  CLUSTER_TOOLING_ENV,
  EXTERNAL_SERVICES,
  MONITORING_SERVICES,
  SHARED_ENV,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_SERVICES,
  TEMPORAL_UI_VERSION,
  serviceNodeOptions,
} from '../../scripts/topology';
import { clusterTemporalConfig, clusterTemporalPort, scriptCommand, workerMetricsEnv } from '../../scripts/cluster';

const ROOT = path.resolve(__dirname, '../..');
const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
const envNames = (service: any) => Object.keys(service.environment ?? {}).sort();

/** docker-compose.yml and `npm run cluster` describe one shape: scripts/topology.ts. */
describe('docker-compose.yml and the cluster script', () => {
  it('run the same services', () => {
    const declared = [...EXTERNAL_SERVICES, ...MONITORING_SERVICES, ...Object.values(TEMPORAL_SERVICES), ...APP_SERVICES.map((s) => s.name)];
    expect(Object.keys(compose.services).sort()).toEqual(declared.sort());
  });

  it.each(APP_SERVICES.map((s) => [s.name, s] as const))('%s: same command, environment names and default replicas', (name, service) => {
    const c = compose.services[name];
    expect(c.command).toEqual(['npm', 'run', service.script]);
    expect(envNames(c)).toEqual([...SHARED_ENV, ...service.env, ...(service.heapMb ? ['NODE_OPTIONS'] : [])].sort());
    // The same heap bound in both: compose's NODE_OPTIONS is what the cluster script puts first.
    expect(c.environment.NODE_OPTIONS).toBe(serviceNodeOptions(service, undefined));
    expect(c.deploy.replicas).toBe(service.replicas.default);
    // The cluster script runs the same package.json script, without npm in between.
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(scriptCommand(service.script).args.slice(-1)[0]).toBe(pkg.scripts[service.script].split(/\s+/)[1]);
  });

  it("a worker's heap is bounded by default, and an operator's NODE_OPTIONS comes after the bound (the last flag wins)", () => {
    const worker = APP_SERVICES.find((s) => s.name === 'worker')!;
    expect(serviceNodeOptions(worker, undefined)).toBe('--max-old-space-size=256');
    expect(serviceNodeOptions(worker, '--max-old-space-size=1024 --enable-source-maps')).toBe(
      '--max-old-space-size=256 --max-old-space-size=1024 --enable-source-maps',
    );
    expect(serviceNodeOptions(APP_SERVICES.find((s) => s.name === 'api')!, undefined)).toBeUndefined();
  });

  it('pass only variables the server reads, and document the tooling ones', () => {
    for (const name of [...SHARED_ENV, ...APP_SERVICES.flatMap((s) => s.env)]) expect(ENV_VARIABLES).toContain(name);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const name of [...CLUSTER_TOOLING_ENV, ...APP_SERVICES.map((s) => s.replicas.variable)]) expect(readme).toContain(`\`${name}\``);
  });

  it('run the same Temporal server and UI versions as the Go build', () => {
    expect(compose.services[TEMPORAL_SERVICES.server].image).toBe(`temporalio/auto-setup:${TEMPORAL_SERVER_VERSION}`);
    expect(compose.services[TEMPORAL_SERVICES.ui].image).toBe(`temporalio/ui:${TEMPORAL_UI_VERSION}`);
    const build = fs.readFileSync(path.join(ROOT, 'scripts', 'temporal-server.sh'), 'utf8');
    expect(build).toContain(`TEMPORAL_SERVER_VERSION:-v${TEMPORAL_SERVER_VERSION}}`);
    expect(build).toContain(`TEMPORAL_UI_VERSION:-v${TEMPORAL_UI_VERSION}}`);
  });

  // Temporal's frontend and UI authenticate nobody: a port published on every interface hands every
  // project's histories, and the power to terminate workflows, to whoever reaches the host.
  it.each(Object.entries(compose.services).flatMap(([name, s]: [string, any]) => (s.ports ?? []).map((p: unknown) => [name, p] as const)))(
    '%s publishes %s on loopback only',
    (_name, port) => {
      // Short syntax: [HOST_IP:]HOST_PORT:CONTAINER_PORT; a bare or two-part mapping binds every interface.
      // Variables are read at their defaults (`${VAR:-8233}`), which is what an unconfigured host runs.
      const spec = (typeof port === 'string' ? port : String(port)).replace(/\$\{\w+:-([^}]*)\}/g, '$1');
      const hostIp = typeof port === 'object' && port ? (port as any).host_ip : spec.split(':').length === 3 ? spec.split(':')[0] : undefined;
      expect(hostIp).toBe('127.0.0.1');
    },
  );

  it('publish nothing of Postgres', () => {
    for (const name of EXTERNAL_SERVICES) expect(compose.services[name].ports).toBeUndefined();
  });

  it('the cluster binds the Temporal server, its internal services, metrics and the UI to loopback', () => {
    const { server, ui } = clusterTemporalConfig({
      databaseUrl: 'postgres://u:p@127.0.0.1:5432/svc',
      temporalAddress: 'localhost:7233',
      uiPort: 8233,
      namespace: 'default',
      dir: '/tmp/x',
    });
    const s = parse(server);
    for (const svc of ['frontend', 'history', 'matching', 'worker']) expect(s.services[svc].rpc.bindOnIP).toBe('127.0.0.1');
    expect(s.global.membership.broadcastAddress).toBe('127.0.0.1');
    expect(s.global.metrics.prometheus.listenAddress).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(parse(ui).host).toBe('127.0.0.1');
    expect(CLUSTER_BIND_HOST).toBe('127.0.0.1');
  });

  it('the cluster refuses a TEMPORAL_ADDRESS on another interface', () => {
    expect(() => clusterTemporalPort('0.0.0.0:7233')).toThrow(/binds the Temporal server to 127\.0\.0\.1/);
    expect(() => clusterTemporalPort('10.0.0.5:7233')).toThrow(/TEMPORAL_ADDRESS/);
    expect(clusterTemporalPort('127.0.0.1:7233')).toBe('7233');
  });

  it('gives each worker replica its own metrics ports', () => {
    const env = { WORKER_METRICS_ADDRESS: '127.0.0.1:9464', WORKER_APP_METRICS_ADDRESS: '127.0.0.1:9465' };
    expect(workerMetricsEnv(env, 0)).toEqual(env);
    expect(workerMetricsEnv(env, 1)).toEqual({ WORKER_METRICS_ADDRESS: '127.0.0.1:9466', WORKER_APP_METRICS_ADDRESS: '127.0.0.1:9467' });
    expect(workerMetricsEnv({}, 3)).toEqual({});
  });
});
