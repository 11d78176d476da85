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
`;
