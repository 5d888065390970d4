// A Slack-like rendering of the Block Kit messages `alert --webhook-format slack` posts, to look at
// before a change to src/alerts/formats/slack.ts lands: a firing and a resolved message for a rate,
// a count and a freshness rule, drawn the way Slack lays out header, section, fields and context.
//
//   npm run build && node scripts/slack-preview.mjs [OUT.html] [--png OUT.png]   (--png needs chromium)

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { slackBody } from '../dist/alerts/formats/slack.js';
import { fingerprintOf } from '../dist/alerts/message.js';

const base = {
  description: '',
  report: null,
  column: null,
  freshnessOf: null,
  isRate: false,
  volumeColumn: null,
  volume: null,
  count: null,
  period: 'day',
  periodStart: new Date('2026-11-23T00:00:00Z'),
  periodEnd: new Date('2026-11-24T00:00:00Z'),
  firingSince: new Date('2026-11-23T00:00:00Z'),
  resolvedAt: null,
  link: 'https://reports.example.com/convoduck/report.html',
  runbookUrl: 'https://wiki.example.com/runbooks/order-backend',
  detectedAt: new Date('2026-11-24T00:05:00Z'),
  side: 'above',
};
const alerts = [
  { ...base, status: 'firing', rule: 'tool-failures-per-connection', kind: 'anomaly', level: 'error', description: 'Tool calls through this connection fail far more than usual',
    labels: { space: 'acme-prod', connection_id: 'c-17', connection_name: 'Order backend' }, report: 'connection_health', column: 'failure_rate', isRate: true,
    volumeColumn: 'calls', volume: 20, count: 13, value: 0.65, expected: 0.16, bound: 0.6 },
  { ...base, status: 'resolved', rule: 'volume-drop', kind: 'change', level: 'error', description: 'Far fewer conversations than on the same weekday of the last weeks',
    labels: { space: 'acme-prod' }, report: 'outcomes', column: 'conversations', value: 24, expected: 25.5, bound: 6.38, side: 'below',
    periodStart: new Date('2026-11-24T00:00:00Z'), periodEnd: new Date('2026-11-25T00:00:00Z'), resolvedAt: new Date('2026-11-24T00:00:00Z'), runbookUrl: null },
  { ...base, status: 'firing', rule: 'no-conversations', kind: 'freshness', level: 'warn', description: 'No conversation started for hours in a space that usually has some',
    labels: { space: 'acme-prod' }, freshnessOf: 'conversations', period: 'hour', value: 26.5, expected: null, bound: 24,
    periodStart: new Date('2026-11-24T08:00:00Z'), periodEnd: new Date('2026-11-24T09:00:00Z'), firingSince: new Date('2026-11-24T07:00:00Z'), runbookUrl: null },
].map((a) => ({ ...a, fingerprint: fingerprintOf(a.rule, JSON.stringify(a.labels)) }));

const EMOJI = { ':rotating_light:': '🚨', ':white_check_mark:': '✅' };
const html = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
// mrkdwn as Slack draws it: its own escapes undone, links, *bold*, > quotes, line breaks
function mrkdwn(text) {
  const raw = text.replaceAll('&lt;', '\u0001').replaceAll('&gt;', '\u0002').replaceAll('&amp;', '&');
  let out = html(raw.replace(/<([^|>]+)\|([^>]+)>/g, '\u0003$1\u0004$2\u0005'));
  out = out.replace(/\u0003([^\u0004]+)\u0004([^\u0005]+)\u0005/g, '<a href="$1">$2</a>');
  out = out.replace(/\*([^*\n]+)\*/g, '<b>$1</b>').replace(/^&gt;(.*)$/gm, '<blockquote>$1</blockquote>');
  return out.replaceAll('\u0001', '&lt;').replaceAll('\u0002', '&gt;').replaceAll('\n', '<br>');
}
const text = (t) => (t.type === 'mrkdwn' ? mrkdwn(t.text) : html(t.text).replace(/:[a-z_]+:/g, (e) => EMOJI[e] ?? e));
function block(b) {
  if (b.type === 'header') return `<div class="header">${text(b.text)}</div>`;
  if (b.type === 'context') return `<div class="context">${b.elements.map(text).join(' ')}</div>`;
  const fields = b.fields ? `<div class="fields">${b.fields.map((f) => `<div>${text(f)}</div>`).join('')}</div>` : '';
  return `<div class="section">${b.text ? `<div>${text(b.text)}</div>` : ''}${fields}</div>`;
}
const messages = alerts.map((a) => {
  const body = slackBody(a);
  return `<div class="msg"><div class="avatar">cd</div><div class="body"><div class="who"><b>convoduck</b> <span>APP 00:05</span></div>${body.blocks.map(block).join('')}</div></div>`;
});
const page = `<!doctype html><meta charset="utf-8"><title>Slack preview</title><style>
body{font:15px/1.46 -apple-system,"Segoe UI",Lato,Helvetica,Arial,sans-serif;color:#1d1c1d;margin:0;background:#fff;width:760px}
.msg{display:flex;gap:8px;padding:8px 20px;border-bottom:1px solid #eee}.avatar{width:36px;height:36px;border-radius:4px;background:#4a154b;color:#fff;display:flex;align-items:center;justify-content:center;font-weight:700;flex:none}
.body{flex:1;min-width:0}.who span{color:#616061;font-size:12px}.header{font-size:18px;font-weight:900;margin:4px 0}
.section{margin:4px 0}.fields{display:grid;grid-template-columns:1fr 1fr;gap:8px 16px;margin-top:6px}.fields>div{overflow-wrap:anywhere}
blockquote{margin:0;padding-left:12px;border-left:4px solid #ddd}.context{font-size:12px;color:#616061;margin-top:6px}a{color:#1264a3;text-decoration:none}
</style>${messages.join('')}`;

const args = process.argv.slice(2);
const png = args.includes('--png') ? args[args.indexOf('--png') + 1] : null;
const out = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--png') ?? 'slack-preview.html';
writeFileSync(out, page);
process.stderr.write(`wrote ${out}\n`);
if (png) {
  execFileSync(process.env.CHROMIUM_PATH ?? 'chromium', ['--headless', '--no-sandbox', '--disable-gpu', `--screenshot=${png}`, '--window-size=760,1200', pathToFileURL(resolve(out)).href], { stdio: 'ignore' });
  process.stderr.write(`wrote ${png}\n`);
}
