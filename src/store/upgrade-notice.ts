// Told before a file is upgraded to a newer schema: the upgrade may copy the big tables, so the
// CLI says so rather than stay silent. Its own module so the CLI can listen without loading DuckDB.

export const upgradeNotice: { listener?: (path: string, from: number, to: number) => void } = {};
