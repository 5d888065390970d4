// `npm ci` on a clone runs postprepare, which builds dist/. A packed package already holds dist/, and
// an install of it has no TypeScript (a devDependency): there is nothing to build, so say nothing.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  if (existsSync(new URL('../dist/cli/main.js', import.meta.url))) process.exit(0);
  console.error('convoduck: dist/ is missing and TypeScript is not installed — run npm ci in the clone');
  process.exit(1);
}
execFileSync(process.execPath, [tsc, '-p', '.'], { stdio: 'inherit', cwd: new URL('..', import.meta.url) });
