// A Slack incoming-webhook message in Block Kit: a header, the summary, the figures as fields,
// the rule's description and the link, with `text` as the notification's fallback. Slack refuses
// a message whose blocks break its limits, so every text is cut to them here.

import { clip, figures, instantText, summaryText, whereText, type AlertFacts } from '../message.js';

/** Block Kit's limits (api.slack.com/reference/block-kit/blocks). */
export const SLACK_LIMITS = { header: 150, sectionText: 3000, fields: 10, fieldText: 2000, contextText: 3000, blocks: 50, text: 3000 } as const;

type Text = { type: 'plain_text'; text: string; emoji?: boolean } | { type: 'mrkdwn'; text: string };
export type Block =
  | { type: 'header'; text: { type: 'plain_text'; text: string; emoji: boolean } }
  | { type: 'section'; text?: Text; fields?: Text[] }
  | { type: 'context'; elements: Text[] };

/** mrkdwn's three control characters, escaped as Slack asks. */
const esc = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

export function slackBody(f: AlertFacts): { text: string; blocks: Block[] } {
  const summary = summaryText(f);
  const head = f.status === 'firing' ? `:rotating_light: ${f.level.toUpperCase()}` : ':white_check_mark: RESOLVED';
  const fig = figures(f);
  const field = (name: string, value: string | undefined): Text[] => (value === undefined ? [] : [{ type: 'mrkdwn', text: clip(`*${name}*\n${esc(value)}`, SLACK_LIMITS.fieldText) }]);
  const counts = f.count !== null && f.volume !== null ? `${fig.count} of ${fig.volume}` : fig.volume;
  const fields = [
    ...field('Where', whereText(f.labels)),
    ...field(f.status === 'firing' ? 'Value' : 'Value now', fig.value),
    ...field('Usually', fig.expected),
    ...field(`Bound (${f.level})`, fig.bound),
    ...field(f.isRate ? 'Counts' : 'Volume', counts),
    ...field('Period', f.kind === 'freshness' ? `at ${instantText('hour', f.periodEnd)}` : `${f.period} from ${instantText(f.period, f.periodStart)}${f.period === 'hour' ? '' : ' (UTC)'}`),
    ...field('Firing since', instantText(f.period, f.firingSince)),
    ...field('Resolved at', f.resolvedAt === null ? undefined : instantText(f.period, f.resolvedAt)),
    ...field('Measure', fig.measure),
  ].slice(0, SLACK_LIMITS.fields);
  const blocks: Block[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(`${head} ${f.rule}: ${whereText(f.labels)}`, SLACK_LIMITS.header), emoji: true } },
    { type: 'section', text: { type: 'mrkdwn', text: clip(esc(summary), SLACK_LIMITS.sectionText) } },
    { type: 'section', fields },
  ];
  if (f.description) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: clip(`>${esc(f.description)}`, SLACK_LIMITS.sectionText) } });
  const links = [f.link ? `<${linkHref(f.link)}|The report with these numbers>` : null, f.runbookUrl ? `<${linkHref(f.runbookUrl)}|Runbook>` : null].filter((l) => l !== null);
  if (links.length > 0) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: clip(links.join('  ·  '), SLACK_LIMITS.contextText) }] });
  return { text: clip(`${f.status === 'firing' ? `${f.level.toUpperCase()} ` : ''}${summary}`, SLACK_LIMITS.text), blocks };
}

/** A URL inside `<…|…>`: the two characters that would end it percent-encoded. */
function linkHref(url: string): string {
  return url.replaceAll('|', '%7C').replaceAll('>', '%3E').replaceAll('<', '%3C');
}
