// How the page names agents and tools: by name alone on a page of one space, with the space in
// brackets on a page of several, and with the id (agent) or slug (tool) when one space holds two
// of one name.
import { describe, expect, it } from 'vitest';
import { agentKey, pageNames } from '../../src/reports/html/names.js';
import type { ReportRows, Row } from '../../src/reports/rows.js';

const rows = (...list: Row[]): ReportRows => ({ name: 'test', title: 'test', columns: [], rows: list });
const agent = (space: string, id: string, name: string | null): Row => ({ space, agent_id: id, agent_name: name });
const tool = (space: string, slug: string, name: string): Row => ({ space, slug, tool_name: name });

describe('pageNames', () => {
  it('names by name alone when every row is one space’s', () => {
    const names = pageNames([rows(agent('prod', 'a1', 'Front Desk'), agent('prod', 'a2', 'Website Chat'))], [rows(tool('prod', 'lookup_order', 'Look up order'))]);
    expect(names.spaces).toEqual(['prod']);
    expect(names.agent(agent('prod', 'a1', 'Front Desk'))).toBe('Front Desk');
    expect(names.tool(tool('prod', 'lookup_order', 'Look up order'))).toBe('Look up order');
  });

  it('adds the space in charts when rows of two spaces share a name; tables keep the bare name', () => {
    const prod = agent('prod', 'a1', 'Front Desk');
    const staging = agent('staging', 'b1', 'Front Desk');
    const names = pageNames([rows(prod, staging)], [rows(tool('prod', 'lookup_order', 'Look up order'), tool('staging', 'lookup_order', 'Look up order'))]);
    expect(names.spaces).toEqual(['prod', 'staging']);
    expect([names.agent(prod), names.agent(staging)]).toEqual(['Front Desk (prod)', 'Front Desk (staging)']);
    expect(names.agentName(staging)).toBe('Front Desk');
    expect(names.tool(tool('staging', 'lookup_order', 'Look up order'))).toBe('Look up order (staging)');
  });

  it('tells two of one name in one space apart by id or slug, and keys agents by space and id', () => {
    const one = agent('prod', 'a1', 'Front Desk');
    const two = agent('prod', 'a2', 'Front Desk');
    const unnamed = agent('prod', 'a3', null);
    const names = pageNames([rows(one, two, unnamed)], [rows(tool('prod', 'lookup', 'Look up order'), tool('prod', 'lookup_v2', 'Look up order'))]);
    expect([names.agent(one), names.agent(two), names.agent(unnamed)]).toEqual(['Front Desk [a1]', 'Front Desk [a2]', 'a3']);
    expect(names.toolName(tool('prod', 'lookup_v2', 'Look up order'))).toBe('Look up order [lookup_v2]');
    expect(agentKey(agent('prod', 'a1', 'x'))).not.toBe(agentKey(agent('staging', 'a1', 'x')));
  });
});
