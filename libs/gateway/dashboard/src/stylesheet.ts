/**
 * The dashboard's one stylesheet, served from the gateway (no CDN). Colours meet WCAG AA: text
 * #1f2933 on white 14.6:1, links #1a56db 6.0:1, the error #b42318 on #fef3f2 5.9:1, and every
 * status badge's text on its background above 4.5:1.
 */
export const STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2933; background: #fff; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .75rem 1.5rem; border-bottom: 1px solid #d2d6dc; }
header form { margin-left: auto; display: flex; align-items: center; gap: .75rem; }
.brand { margin: 0; font-weight: 700; }
nav a { margin-right: 1rem; }
main { max-width: 64rem; margin: 0 auto; padding: 1.5rem; }
a { color: #1a56db; }
:focus-visible { outline: 3px solid #1a56db; outline-offset: 2px; }
.stack { display: grid; gap: .5rem; max-width: 24rem; }
input { font: inherit; padding: .5rem; border: 1px solid #52606d; border-radius: 4px; }
button { font: inherit; padding: .5rem 1rem; border: 0; border-radius: 4px; background: #1a56db; color: #fff; cursor: pointer; }
.error { padding: .75rem; border-radius: 4px; background: #fef3f2; color: #b42318; }
.notice { padding: .75rem; border-radius: 4px; background: #ecfdf3; color: #05603a; }
table { width: 100%; border-collapse: collapse; }
th, td { padding: .5rem; text-align: left; border-bottom: 1px solid #d2d6dc; }
.status { padding: .125rem .5rem; border-radius: 999px; font-size: .875rem; }
.status-completed { background: #ecfdf3; color: #05603a; }
.status-failed { background: #fef3f2; color: #b42318; }
.status-cancelled { background: #f2f4f7; color: #344054; }
.status-pending { background: #fffaeb; color: #93370d; }
.who { color: #3e4c59; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: none; }
main { max-width: 72rem; }
h1 { margin-top: 0; }
section { margin: 2rem 0; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875rem; overflow-wrap: anywhere; }
th.mono { overflow-wrap: normal; white-space: nowrap; }
.hint { color: #3e4c59; font-size: .875rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 1rem; }
.card { margin: 0; padding: 1rem; border: 1px solid #d2d6dc; border-radius: 8px; }
.card h2 { margin: 0 0 .5rem; font-size: 1.125rem; }
.figures { display: flex; flex-wrap: wrap; gap: 1.5rem; margin: 0; }
.figures dt { color: #3e4c59; font-size: .875rem; }
.figures dd { margin: 0; font-size: 1.5rem; font-weight: 600; }
.chart { margin: 1rem 0; }
.chart > svg { width: 100%; height: 12rem; border: 1px solid #d2d6dc; border-radius: 4px; }
.axis { font-size: 12px; fill: #3e4c59; }
.legend { margin-right: 1rem; white-space: nowrap; }
.swatch { vertical-align: middle; }
.filters { display: flex; flex-wrap: wrap; align-items: end; gap: .75rem; margin-bottom: 1rem; }
.field { display: grid; gap: .25rem; }
.field.wide { flex: 1 1 16rem; }
select { font: inherit; padding: .5rem; border: 1px solid #52606d; border-radius: 4px; background: #fff; color: inherit; }
.record { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: .5rem 1.5rem; }
.record dt { color: #3e4c59; font-size: .875rem; }
.record dd { margin: 0; }
.timeline { padding-left: 1.25rem; }
.timeline li { margin-bottom: .5rem; }
.detail { color: #3e4c59; }
.callback { margin: 1rem 0; padding: 1rem; border: 1px solid #d2d6dc; border-radius: 8px; }
.callback h3 { margin: 0 0 .25rem; }
caption { text-align: left; color: #3e4c59; padding: .25rem 0; }
.once { padding: 1rem; border: 2px solid #1a56db; border-radius: 8px; }
.copy-row { display: flex; gap: .5rem; }
.copy-row input { flex: 1; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; }
form.inline { display: inline-flex; align-items: center; gap: .5rem; margin: .25rem .5rem .25rem 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.transfer { display: block; }
.status-delivered { background: #ecfdf3; color: #05603a; }
.status-delivering, .status-pending { background: #fffaeb; color: #93370d; }
.status-abandoned, .status-undeliverable { background: #fef3f2; color: #b42318; }
`;
