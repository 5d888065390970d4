// The page's style, inline (nothing is loaded): system fonts, a column that fits an A4 page, and
// print rules that keep each tile, chart and table row on one page. Colours of changes follow the
// charts' colour-blind-safe palette (Okabe–Ito) and are never the only cue (arrow and word too).

export const PAGE_STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 780px; padding: 24px 16px 40px; color: #1a1a1a; background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 16px; margin: 0 0 2px; }
header p { margin: 2px 0; }
code { font: 12px/1.3 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.warning { margin: 14px 0 6px; padding: 8px 12px; border-left: 4px solid #E69F00; background: #fff6e5; }
.nothing { margin: 40px 0; padding: 24px; text-align: center; font-size: 18px; border: 1px dashed #999; }
.tiles { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; margin: 18px 0; }
.tile { border: 1px solid #ddd; border-radius: 6px; padding: 10px 12px; }
.tile .label { font-size: 12px; color: #444; text-transform: uppercase; letter-spacing: 0.03em; }
.tile .figure { font-size: 26px; font-weight: 600; margin: 2px 0; }
.tile .note { font-size: 12px; color: #555; }
.tile .change { font-size: 12px; margin-top: 4px; color: #444; }
.tile .change.better { color: #005a8c; }
.tile .change.worse { color: #a33f00; }
code.flag { font-size: inherit; white-space: nowrap; }
section.why > h2 { margin-top: 32px; }
.chart, section.table { margin: 26px 0 0; }
.hint { margin: 0 0 8px; color: #444; font-size: 13px; }
.drawing svg { max-width: 100%; height: auto; display: block; }
figure { margin-left: 0; margin-right: 0; }
figcaption { font-size: 12px; color: #666; margin-top: 4px; }
.empty { padding: 18px; color: #444; border: 1px dashed #bbb; text-align: center; }
table { border-collapse: collapse; width: 100%; font-size: 12.5px; }
th, td { padding: 4px 6px; border-bottom: 1px solid #e4e4e4; text-align: left; vertical-align: top; }
th { font-weight: 600; border-bottom: 2px solid #bbb; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.small td { color: #555; }
.badge { display: inline-block; font-size: 10.5px; padding: 0 5px; border: 1px solid #999; border-radius: 8px; color: #444; white-space: nowrap; }
td code { font-size: 11px; word-break: break-all; }
footer { margin-top: 32px; font-size: 12px; color: #555; border-top: 1px solid #ddd; padding-top: 8px; }
@page { size: A4; margin: 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  .tile, .chart, .warning, tr, thead { break-inside: avoid; }
  h2, .hint { break-after: avoid; }
  section.table { break-before: auto; }
}
`;
