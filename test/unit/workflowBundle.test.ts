import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prebuiltWorkflowBundle, workflowSourceHash } from '../../worker/workflowBundle';

describe('the prebuilt workflow bundle (worker/workflowBundle.ts)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bundle-'));
  const bundle = path.join(dir, 'workflow-bundle.js');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is used only when it exists and its recorded hash is that of the current sources', () => {
    expect(prebuiltWorkflowBundle(bundle)).toBeNull();
    fs.writeFileSync(bundle, '/* bundle */');
    expect(prebuiltWorkflowBundle(bundle)).toBeNull();
    fs.writeFileSync(`${bundle}.source-hash`, workflowSourceHash());
    expect(prebuiltWorkflowBundle(bundle)).toBe(bundle);
    // Built from other sources (temporal/ changed since): the worker bundles from source instead.
    fs.writeFileSync(`${bundle}.source-hash`, 'a'.repeat(64));
    expect(prebuiltWorkflowBundle(bundle)).toBeNull();
    fs.writeFileSync(`${bundle}.source-hash`, workflowSourceHash());
    fs.rmSync(bundle);
    expect(prebuiltWorkflowBundle(bundle)).toBeNull();
  });

  it('hashes what the sandbox bundles: a change under temporal/ changes it', () => {
    const before = workflowSourceHash();
    const probe = path.join(__dirname, '..', '..', 'temporal', `.bundle-probe-${process.pid}`);
    fs.writeFileSync(probe, 'x');
    try {
      expect(workflowSourceHash()).not.toBe(before);
    } finally {
      fs.rmSync(probe);
    }
    expect(workflowSourceHash()).toBe(before);
  });
});
