// What an output folder holds, as text to search for personal data: every file, Parquet files
// read back through DuckDB (their pages are compressed, so their bytes would hide the text).
import { DuckDBInstance } from '@duckdb/node-api';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export async function folderText(dir: string): Promise<string> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const texts: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) await walk(path);
      else if (path.endsWith('.parquet')) {
        const reader = await connection.runAndReadAll(`SELECT * FROM read_parquet('${path.replace(/'/g, "''")}')`);
        texts.push(JSON.stringify(reader.getRowsJson()));
      } else texts.push(readFileSync(path, 'utf8'));
    }
  };
  await walk(dir);
  connection.closeSync();
  instance.closeSync();
  return texts.join('\n');
}
