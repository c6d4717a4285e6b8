import { MockActivityEnvironment } from '@temporalio/testing';
import { loopHeartbeat } from '../../activities/handOver';

it('a render loop heartbeats at most once per interval, with its progress', async () => {
  const env = new MockActivityEnvironment();
  const beats: unknown[] = [];
  env.on('heartbeat', (d: unknown) => beats.push(d));
  const progress = { stage: 'render' };
  let now = 1_000;
  await env.run(async () => {
    const beat = loopHeartbeat(progress, 200, () => now);
    // A thousand recipients in the same instant: one call into the SDK.
    for (let i = 0; i < 1000; i++) beat();
    expect(beats).toEqual([progress]);
    now += 199;
    beat();
    expect(beats).toHaveLength(1);
    now += 1;
    beat();
    beat();
    expect(beats).toEqual([progress, progress]);
  });
});
