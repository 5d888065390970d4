// What an alert says, as pure functions: the group and the figures in words, the one line for
// each kind, and each format's body within its service's documented limits however long the
// names, the description or the link (checked by the receivers' own shape checks).
import { describe, expect, it } from 'vitest';
import { alertmanagerBody } from '../../src/alerts/formats/alertmanager.js';
import { PAGERDUTY_LIMITS, pagerdutyBody } from '../../src/alerts/formats/pagerduty.js';
import { SLACK_LIMITS, slackBody } from '../../src/alerts/formats/slack.js';
import { clip, figure, percent, summaryText, whereText, type AlertFacts } from '../../src/alerts/message.js';
import { alertmanagerShape, pagerdutyShape, slackShape } from '../support/webhook-receiver.js';

const DAY = new Date('2026-11-23T00:00:00Z');
const NEXT = new Date('2026-11-24T00:00:00Z');

const failing: AlertFacts = {
  status: 'firing',
  rule: 'tool-failures-per-connection',
  kind: 'threshold',
  level: 'error',
  description: 'Tool calls through this connection fail far more than usual',
  labels: { space: 'acme-prod', connection_id: 'c_9', connection_name: 'Order backend' },
  report: 'connection_health',
  column: 'failure_rate',
  freshnessOf: null,
  isRate: true,
  volumeColumn: 'calls',
  volume: 20,
  count: 12,
  period: 'day',
  periodStart: DAY,
  periodEnd: NEXT,
  value: 0.6,
  expected: 0.16,
  bound: 0.5,
  side: 'above',
  firingSince: DAY,
  resolvedAt: null,
  link: 'https://reports.example.com/report.html',
  runbookUrl: null,
  detectedAt: new Date('2026-11-24T09:00:05Z'),
  fingerprint: '0123456789abcdef',
};

describe('the words', () => {
  it('names the group by its names, the space in parentheses', () => {
    expect(whereText({ space: 'acme-prod', connection_id: 'c_9', connection_name: 'Order backend' })).toBe('Order backend (acme-prod)');
    expect(whereText({ space: 'acme-prod', agent_id: 'a_1', agent_name: 'Order Support', channel: 'voice' })).toBe('Order Support, voice (acme-prod)');
    expect(whereText({ space: 'acme-prod', connection_id: 'c_9', connection_name: null })).toBe('c_9 (acme-prod)');
    expect(whereText({ space: 'acme-prod' })).toBe('acme-prod');
    expect(whereText({})).toBe('all spaces');
  });

  it('writes figures and shares as a person reads them', () => {
    expect([figure(12), figure(10.3333), figure(2.5833), figure(0.16667), figure(1234.5)]).toEqual(['12', '10.3', '2.58', '0.167', '1235']);
    expect([percent(0.6), percent(0.16), percent(0.0833), percent(1), percent(0.8119)]).toEqual(['60%', '16%', '8.3%', '100%', '81%']);
  });

  it('says what, where, how bad and against what, for each kind', () => {
    expect(summaryText(failing)).toBe('Order backend (acme-prod): failure rate 60% (12 of 20 calls) on 2026-11-23; usually 16%; error above 50%');
    expect(summaryText({ ...failing, status: 'resolved', value: 2 / 24, count: 2, volume: 24, periodStart: NEXT, resolvedAt: NEXT })).toBe(
      'Resolved: Order backend (acme-prod): failure rate 8.3% (2 of 24 calls) on 2026-11-24; usually 16%; was error above 50% since 2026-11-23',
    );
    const drop: AlertFacts = { ...failing, rule: 'volume-drop', kind: 'change', labels: { space: 'acme-prod' }, report: 'outcomes', column: 'conversations', isRate: false, volumeColumn: null, volume: null, count: null, value: 2, expected: 10.3333, bound: 2.5833, side: 'below' };
    expect(summaryText(drop)).toBe('acme-prod: 2 conversations on 2026-11-23 (81% below usual); usually 10.3; error below 2.58');
    const slow: AlertFacts = { ...failing, labels: { space: 'acme-prod', agent_id: 'a_1', agent_name: 'Order Support', channel: 'voice' }, column: 'p90_sec', isRate: false, volumeColumn: 'answers', volume: 40, count: null, value: 75, expected: null, bound: 60, period: 'hour' };
    expect(summaryText(slow)).toBe('Order Support, voice (acme-prod): p90 75 s (40 answers) in the hour from 2026-11-23 00:00 UTC; error above 60 s');
    const quiet: AlertFacts = { ...failing, kind: 'freshness', freshnessOf: 'conversations', labels: { space: 'acme-prod' }, report: null, column: null, isRate: false, volumeColumn: null, volume: null, count: null, value: 30.5, expected: null, bound: 24, level: 'warn', period: 'hour', periodEnd: new Date('2026-11-23T09:00:00Z') };
    expect(summaryText(quiet)).toBe('acme-prod: no new conversation for 30.5 hours at 2026-11-23 09:00 UTC; warn from 24 hours');
  });

  it('clips to a length without splitting a character', () => {
    expect(clip('abcdef', 6)).toBe('abcdef');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('ab😀cd', 4)).toBe('ab…');
    expect(clip('ab😀cd', 4).length).toBeLessThanOrEqual(4);
  });
});

describe('each format within its limits', () => {
  const long = 'Ünïcødé & <b>name</b> 😀 '.repeat(400);
  const huge: AlertFacts = {
    ...failing,
    description: long,
    labels: { space: long, connection_id: long, connection_name: long, a: long, b: long, c: long, d: long, e: long, f: long, g: long, h: long },
    link: `https://reports.example.com/${'p/'.repeat(100)}report.html?x=a|b>c`,
  };

  it('slack: header, section texts and fields cut to Block Kit’s limits, the control characters escaped', () => {
    for (const f of [failing, huge, { ...huge, status: 'resolved' as const, resolvedAt: NEXT }]) {
      const body = slackBody(f);
      expect(slackShape(body)).toEqual([]);
      const header = body.blocks[0]!;
      expect(header.type).toBe('header');
      expect((header as { text: { text: string } }).text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.header);
      expect(body.text.length).toBeLessThanOrEqual(SLACK_LIMITS.text);
      for (const b of body.blocks) {
        if (b.type === 'section' && b.fields) {
          expect(b.fields.length).toBeLessThanOrEqual(SLACK_LIMITS.fields);
          for (const field of b.fields) expect(field.text.length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
        }
        if (b.type === 'section' && b.text) expect(b.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      }
    }
    const body = JSON.stringify(slackBody(huge).blocks.slice(1));
    expect(body).not.toMatch(/<b>|& /);
    expect(body).toContain('&lt;b&gt;name&lt;/b&gt;');
    expect(body).toContain('x=a%7Cb%3Ec|The report with these numbers>');
  });

  it('pagerduty: a summary of at most 1024 characters; a resolve carries only the key and the dedup_key', () => {
    const trigger = pagerdutyBody(huge, 'k'.repeat(32)) as { payload: { summary: string } };
    expect(pagerdutyShape(trigger)).toEqual([]);
    expect(trigger.payload.summary.length).toBeLessThanOrEqual(PAGERDUTY_LIMITS.summary);
    expect(trigger.payload.summary.length).toBeGreaterThan(PAGERDUTY_LIMITS.summary - 3);
    expect(trigger.payload.summary.endsWith('…')).toBe(true);
    expect(pagerdutyBody({ ...failing, status: 'resolved', resolvedAt: NEXT }, 'k'.repeat(32))).toEqual({ routing_key: 'k'.repeat(32), event_action: 'resolve', dedup_key: failing.fingerprint });
  });

  it('alertmanager: every label and annotation a string, the link in generatorURL and externalURL', () => {
    const body = alertmanagerBody(huge) as { externalURL: string; alerts: { generatorURL: string; annotations: Record<string, string> }[] };
    expect(alertmanagerShape(body)).toEqual([]);
    expect(body.externalURL).toBe(huge.link);
    expect(body.alerts[0]!.generatorURL).toBe(huge.link);
    expect(body.alerts[0]!.annotations).toMatchObject({ value: '60%', expected: '16%', bound: '50%', count: '12', volume: '20 calls' });
  });
});
