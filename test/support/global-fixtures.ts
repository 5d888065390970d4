// Vitest global setup: the read-only fixture databases several test files share, written once
// per run instead of once per file, their paths handed to the files with `provide` (read them with
// `inject`). A file copies what it may change (copyFixture).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { planFixture, writeFixture } from './exports-fixture.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** the database of support/exports-fixture.ts, for query, export and status */
    exportsFixture: string;
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), 'convoduck-fixtures-'));
  const exportsFixture = join(dir, 'exports.duckdb');
  await writeFixture(exportsFixture, planFixture());
  project.provide('exportsFixture', exportsFixture);
  return () => rmSync(dir, { recursive: true, force: true });
}
