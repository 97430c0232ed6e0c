// The dashboard's style sheet, served by the gateway itself at /dashboard/style.css.

/** uPlot's own rules (uplot/dist/uPlot.min.css, MIT), as the package ships them. */
const UPLOT_CSS = `.uplot, .uplot *, .uplot *::before, .uplot *::after {box-sizing: border-box;}.uplot {font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol", "Noto Color Emoji";line-height: 1.5;width: min-content;}.u-title {text-align: center;font-size: 18px;font-weight: bold;}.u-wrap {position: relative;user-select: none;}.u-over, .u-under {position: absolute;}.u-under {overflow: hidden;}.uplot canvas {display: block;position: relative;width: 100%;height: 100%;}.u-axis {position: absolute;}.u-legend {font-size: 14px;margin: auto;text-align: center;}.u-inline {display: block;}.u-inline * {display: inline-block;}.u-inline tr {margin-right: 16px;}.u-legend th {font-weight: 600;}.u-legend th > * {vertical-align: middle;display: inline-block;}.u-legend .u-marker {width: 1em;height: 1em;margin-right: 4px;background-clip: padding-box !important;}.u-inline.u-live th::after {content: ":";vertical-align: middle;}.u-inline:not(.u-live) .u-value {display: none;}.u-series > * {padding: 4px;}.u-series th {cursor: pointer;}.u-legend .u-off > * {opacity: 0.3;}.u-select {background: rgba(0,0,0,0.07);position: absolute;pointer-events: none;}.u-cursor-x, .u-cursor-y {position: absolute;left: 0;top: 0;pointer-events: none;will-change: transform;}.u-hz .u-cursor-x, .u-vt .u-cursor-y {height: 100%;border-right: 1px dashed #607D8B;}.u-hz .u-cursor-y, .u-vt .u-cursor-x {width: 100%;border-bottom: 1px dashed #607D8B;}.u-cursor-pt {position: absolute;top: 0;left: 0;border-radius: 50%;border: 0 solid;pointer-events: none;will-change: transform;/*this has to be !important since we set inline "background" shorthand */background-clip: padding-box !important;}.u-axis.u-off, .u-select.u-off, .u-cursor-x.u-off, .u-cursor-y.u-off, .u-cursor-pt.u-off {display: none;}`;

const BASE_CSS = `
:root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px; line-height: 1.45; color: #1d2330; background: #f3f4f7; --line: #d5d9e1; --muted: #5a6275; --accent: #f7931a; --ink: #1d2330; --danger: #b42318; --radius: 8px; }
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; }
a { color: #2f5fd0; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .75rem 1.25rem; background: var(--ink); color: #fff; border-radius: var(--radius); grid-column: 1 / -1; }
header h1 { font-size: 1.15rem; margin: 0; }
header .account { flex: 1; opacity: .85; }
header nav a { color: #fff; }
header button { background: transparent; color: #fff; border-color: #fff6; }
main { max-width: 1180px; margin: 0 auto; padding: 1rem 1.25rem 3rem; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 28rem), 1fr)); align-items: start; }
main > * { min-width: 0; }
section { margin: 0; }
h2 { font-size: .8rem; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); margin: 0 0 .6rem; }
.panel, .card { background: #fff; border-radius: var(--radius); padding: 1rem 1.1rem; box-shadow: 0 1px 2px #0001, 0 0 0 1px #0000000a; }
.panel.wide, .cards, .chooser { grid-column: 1 / -1; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 1rem; }
.card p { font-size: 1.5rem; margin: 0; font-variant-numeric: tabular-nums; }
.card p.sub { font-size: .9rem; color: var(--muted); margin-top: .2rem; }
.chooser { display: flex; flex-wrap: wrap; align-items: end; gap: .75rem 1.5rem; }
.chooser .field { flex: 1 1 18rem; max-width: 30rem; }
.exports { display: flex; flex-wrap: wrap; gap: .5rem; }
input, select, button, a.button { font: inherit; font-size: .95rem; color: inherit; border: 1px solid var(--line); border-radius: 6px; min-height: 2.4rem; }
input, select { width: 100%; min-width: 0; padding: .4rem .6rem; background: #fff; }
input::placeholder { color: #9aa1b1; }
input:disabled { background: #f3f4f7; }
button, a.button { display: inline-flex; align-items: center; justify-content: center; gap: .35rem; padding: .4rem .9rem; background: #fff; cursor: pointer; text-decoration: none; white-space: nowrap; font-weight: 500; }
button:hover, a.button:hover { background: #f3f4f7; }
button.primary { background: var(--ink); border-color: var(--ink); color: #fff; }
button.primary:hover { background: #343c50; }
button.danger { color: var(--danger); border-color: #f1b7b0; }
button.danger:hover { background: #fdf0ee; }
:focus-visible { outline: 3px solid #2f5fd080; outline-offset: 1px; }
input:invalid:not(:placeholder-shown) { border-color: var(--danger); }
.field { display: flex; flex-direction: column; gap: .25rem; font-size: .9rem; }
.field .label { font-weight: 600; color: var(--ink); }
.field .hint { color: var(--muted); font-size: .8rem; }
.field[hidden] { display: none; }
.scope-form { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 16rem), 1fr)); gap: .9rem 1rem; margin: .75rem 0 .25rem; align-items: start; }
.scope-form > button, .scope-form > .note { grid-column: 1 / -1; justify-self: start; }
details > summary { cursor: pointer; font-weight: 600; padding: .3rem 0; }
details.new-key, details.new-webhook { margin-top: 1rem; border-top: 1px solid #eceef2; padding-top: .6rem; }
details.restrict { flex-basis: 100%; }
details.restrict .scope-form { min-width: min(34rem, 75vw); }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .45rem .7rem; border-bottom: 1px solid #eceef2; font-size: .9rem; vertical-align: top; }
th { font-size: .78rem; text-transform: uppercase; letter-spacing: .03em; color: var(--muted); white-space: nowrap; }
td:first-child { white-space: nowrap; }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.empty { color: #8a91a3; text-align: center; }
.table-wrap { position: relative; }
.scroll { overflow-x: auto; max-width: 100%; border-radius: 6px; }
.scroll.overflowing:not(.at-end) { box-shadow: inset -14px 0 10px -10px #1d233033; }
.scroll-cue { display: none; margin: .35rem 0 0; font-size: .8rem; color: var(--muted); text-align: right; }
.scroll.overflowing + .scroll-cue { display: block; }
.chart { margin: 0; }
.chart .plot { width: 100%; min-width: 0; overflow: hidden; }
.axis-titles { display: flex; justify-content: space-between; font-size: .8rem; font-weight: 600; }
.axis-titles.usage .left { color: #b86a09; }
.axis-titles.usage .right { color: #2f5fd0; }
.axis-titles.latency .left { color: #0f766e; }
.controls { display: flex; flex-wrap: wrap; align-items: end; gap: .75rem 1rem; margin-bottom: .75rem; }
.controls .field { flex: 1 1 12rem; max-width: 18rem; }
.switch { display: inline-flex; border: 1px solid var(--line); border-radius: 6px; padding: 0; margin: 0; overflow: hidden; }
.switch legend { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
.switch .seg { display: flex; }
.switch .seg input { position: absolute; opacity: 0; width: 1px; height: 1px; }
.switch .seg span { display: flex; align-items: center; min-height: 2.4rem; padding: .4rem .9rem; cursor: pointer; font-size: .95rem; white-space: nowrap; }
.switch .seg + .seg span { border-left: 1px solid var(--line); }
.switch .seg input:checked + span { background: var(--ink); color: #fff; }
.switch .seg input:focus-visible + span { outline: 3px solid #2f5fd080; outline-offset: -3px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 26rem), 1fr)); gap: 1rem 1.5rem; }
.charts > * { min-width: 0; }
.charts > .figures { grid-column: 1 / -1; }
.cards { align-items: start; }
.card.plan { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 13rem), 1fr)); gap: .6rem 1.25rem; }
.card.plan > h2, .card.plan > .limits, .card.plan > p.sub { grid-column: 1 / -1; }
.card.plan > h2 { margin: 0; }
.card.plan .cap p.sub { margin: .1rem 0 0; font-size: .85rem; color: var(--muted); }
@media (min-width: 900px) { .card.plan { grid-column: span 2; } }
.cap-head { display: flex; justify-content: space-between; font-weight: 600; font-size: .9rem; }
.cap meter { width: 100%; height: .8rem; margin: .3rem 0 .1rem; }
.limits { margin: 0; padding-left: 1.1rem; font-size: .85rem; color: var(--muted); }
.chart .x-title { text-align: center; font-size: .8rem; color: var(--muted); }
.chart .u-legend { font-size: .85rem; margin-top: .25rem; }
.chart .u-legend th { text-transform: none; letter-spacing: 0; color: var(--ink); white-space: normal; font-size: .85rem; }
.chart .u-legend td { border: 0; padding: 0; }
.chart .u-legend .u-series > * { padding: 2px 4px; }
.figures { margin-top: .5rem; font-size: .9rem; }
.note { margin: .5rem 0; color: var(--muted); font-size: .9rem; }
.error, .note.error { color: var(--danger); }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: flex-start; }
.card.reveal { border-left: 4px solid var(--accent); margin-bottom: .75rem; }
.card.reveal p { font-size: .95rem; margin: 0 0 .5rem; }
.secret { display: flex; gap: .5rem; align-items: stretch; }
.secret code { flex: 1; min-width: 0; word-break: break-all; font-size: .9rem; padding: .5rem .6rem; background: #f3f4f7; border-radius: 6px; }
button.copy[data-state=copied] { background: #e7f6ec; border-color: #7cc79a; color: #14632f; }
form.signin { max-width: 420px; margin: 15vh auto; background: #fff; padding: 1.5rem; border-radius: var(--radius); box-shadow: 0 1px 3px #0002; }
form.signin h1 { margin-top: 0; font-size: 1.4rem; }
form.signin label { font-weight: 600; }
form.signin input { font-family: ui-monospace, monospace; margin: .4rem 0 1rem; }
form.signin button { width: 100%; background: var(--ink); color: #fff; border-color: var(--ink); }
.banner-slot { grid-column: 1 / -1; }
.banner-slot:empty { display: none; }
.banner { margin: 0; padding: .7rem 1rem; border-radius: var(--radius); background: #fff4e0; border: 1px solid #f0c36d; color: #6b4500; }
.topup-form { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: .5rem 0 1rem; }
.invoice { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; margin-bottom: 1rem; }
.invoice > div { flex: 1 1 12rem; min-width: 0; overflow-wrap: anywhere; }
img.qr { width: 220px; max-width: 100%; height: auto; background: #fff; }
/* A phone: one column, nothing wider than the screen; wide tables scroll inside their own box. */
@media (max-width: 640px) {
  main { padding: .6rem .6rem 2rem; gap: .75rem; }
  header { padding: .6rem .8rem; }
  .panel, .card { padding: .8rem; }
  .cards { grid-template-columns: 1fr 1fr; gap: .75rem; }
  .cards > :nth-child(n+3) { grid-column: 1 / -1; }
  .card p { font-size: 1.25rem; }
  th, td { padding: .35rem .5rem; font-size: .85rem; }
  table.stack > thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.stack, table.stack > tbody, table.stack > tbody > tr, table.stack > tbody > tr > td { display: block; width: 100%; }
  table.stack > tbody > tr { border-bottom: 1px solid #eceef2; padding: .5rem 0; }
  table.stack > tbody > tr > td { border: 0; padding: .15rem 0; white-space: normal; overflow-wrap: anywhere; text-align: left; }
  table.stack > tbody > tr > td[data-label]:not([data-label=""])::before { content: attr(data-label) ": "; font-weight: 600; color: var(--muted); }
  table.stack > tbody > tr > td:empty { display: none; }
  table.stack details.restrict .scope-form { min-width: 0; }
  form.signin { margin: 8vh .75rem; }
  .secret { flex-direction: column; }
}
`;

export const DASHBOARD_CSS = `${UPLOT_CSS}\n${BASE_CSS}`;
