/** `npm run docs:steps`: writes the step table of docs/workflows.md from the registry (test/unit/stepDocs.test.ts checks it). */
import fs from 'node:fs';
import path from 'node:path';
import { withStepTable } from '../services/stepDocs';

const file = path.join(__dirname, '..', 'docs', 'workflows.md');
fs.writeFileSync(file, withStepTable(fs.readFileSync(file, 'utf8')));
process.stdout.write(`wrote the step table of ${path.relative(process.cwd(), file)}\n`);
