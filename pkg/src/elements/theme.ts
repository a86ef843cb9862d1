// The elements' stylesheet. Public knobs are `--oda-*` custom properties (set
// them anywhere above the element) and `::part()`; light and dark defaults
// follow `prefers-color-scheme`. Every pair of colours meets WCAG AA.

/**
 * The CSS every element's shadow root adopts.
 *
 * @example
 * new CSSStyleSheet().replaceSync(STYLES);
 */
export const STYLES = `
:host {
  display: block; min-width: 0;
  font-family: var(--oda-font, system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif);
  line-height: 1.45; color: var(--_ink);
  --_surface: var(--oda-surface, #fff); --_ink: var(--oda-ink, #1c2430); --_muted: var(--oda-muted, #566170);
  --_line: var(--oda-line, #d5dbe3); --_accent: var(--oda-accent, #2457c5); --_on-accent: var(--oda-on-accent, #fff);
  --_pending: var(--oda-pending, #566170); --_progress: var(--oda-progress, #1d57c2); --_done: var(--oda-done, #1a7041);
  --_added: var(--oda-added, #1a7041); --_removed: var(--oda-removed, #b42318); --_changed: var(--oda-changed, #7d5200);
  --_moved: var(--oda-moved, #6b3fb8); --_chip: var(--oda-chip-surface, #faf7ff); --_chip-line: var(--oda-chip-line, #c9b8ee);
  --_button: var(--oda-button-surface, #fff); --_button-line: var(--oda-button-line, #8f9aa8);
  --_focus: var(--oda-focus, #c77700); --_radius: var(--oda-radius, 10px);
}
@media (prefers-color-scheme: dark) {
  :host {
    --_surface: var(--oda-surface, #1a212c); --_ink: var(--oda-ink, #e7ebf0); --_muted: var(--oda-muted, #a9b3c1);
    --_line: var(--oda-line, #344052); --_accent: var(--oda-accent, #8db4ff); --_on-accent: var(--oda-on-accent, #0b1320);
    --_pending: var(--oda-pending, #a9b3c1); --_progress: var(--oda-progress, #8db4ff); --_done: var(--oda-done, #67d196);
    --_added: var(--oda-added, #67d196); --_removed: var(--oda-removed, #ff9b90); --_changed: var(--oda-changed, #eabf62);
    --_moved: var(--oda-moved, #c7a9ff); --_chip: var(--oda-chip-surface, #221d33); --_chip-line: var(--oda-chip-line, #54447a);
    --_button: var(--oda-button-surface, #243041); --_button-line: var(--oda-button-line, #6b7889);
    --_focus: var(--oda-focus, #ffb84d);
  }
}
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
h1, h2, h3, h4, h5, h6 { margin: 0; line-height: 1.25; }
ul, ol { list-style: none; margin: 0; padding: 0; }
p { margin: 0; }
.vh { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
.icon { width: 1em; height: 1em; flex: none; stroke-width: 1.7; stroke-linecap: round; stroke-linejoin: round; }
:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
[tabindex="-1"]:focus { outline: none; }
button {
  font: inherit; font-size: 0.9rem; min-height: 2.25rem; padding: 0.3rem 0.8rem; border-radius: 8px; cursor: pointer;
  border: 1px solid var(--_button-line); background: var(--_button); color: var(--_ink);
  display: inline-flex; align-items: center; gap: 0.35rem;
}
button:hover { border-color: var(--_accent); }
button.primary { background: var(--_accent); border-color: var(--_accent); color: var(--_on-accent); font-weight: 600; }

/* <oda-todo-card> */
.card { background: var(--_surface); border: 1px solid var(--_line); border-radius: var(--_radius); padding: 0.75rem 0.9rem; }
.card.preview { border-style: dashed; }
.card > header { display: flex; justify-content: space-between; align-items: baseline; gap: 0.25rem 0.75rem; flex-wrap: wrap; }
.title { font-size: 0.95rem; display: flex; gap: 0.4rem; align-items: center; }
.title .icon { color: var(--_accent); }
.position { color: var(--_muted); font-size: 0.8rem; }
.summary { display: flex; flex-wrap: wrap; gap: 0.15rem 0.9rem; margin: 0.3rem 0 0.5rem; font-size: 0.82rem; color: var(--_muted); }
.changes { font-weight: 600; }
.todos { display: grid; gap: 0.3rem; }
.todo { display: flex; align-items: flex-start; gap: 0.5rem; font-size: 0.92rem; min-width: 0; }
.todo > .icon { width: 1.1em; height: 1.1em; margin-top: 0.18em; }
.line { display: flex; flex-wrap: wrap; align-items: center; gap: 0.2rem 0.5rem; min-width: 0; }
.text { overflow-wrap: anywhere; }
.s-pending > .icon { color: var(--_pending); }
.s-in_progress > .icon { color: var(--_progress); }
.s-in_progress .text { font-weight: 600; }
.s-completed > .icon { color: var(--_done); }
.s-completed .text { color: var(--_muted); }
.removed > .icon { color: var(--_removed); }
del.text { color: var(--_muted); }
.marks { display: inline-flex; flex-wrap: wrap; gap: 0.3rem; }
.mark { display: inline-flex; align-items: center; gap: 0.25rem; font-size: 0.75rem; font-weight: 600; padding: 0.05rem 0.45rem;
  border-radius: 999px; border: 1px solid currentColor; background: var(--_surface); }
.mark .icon { width: 0.85em; height: 0.85em; }
.m-added { color: var(--_added); }
.m-removed { color: var(--_removed); }
.m-changed { color: var(--_changed); }
.m-moved { color: var(--_moved); }

/* <oda-plan> and <oda-suggestions> */
.panel { background: var(--_surface); border: 1px solid var(--_line); border-radius: var(--_radius); padding: 0.9rem 1rem; }
.heading { font-size: 1rem; margin-bottom: 0.5rem; }
.state { display: flex; align-items: center; gap: 0.4rem; font-weight: 600; margin-bottom: 0.2rem; }
.state.running { color: var(--_progress); }
.state.finished { color: var(--_done); }
.state.none { color: var(--_muted); font-weight: 500; }
.counts { color: var(--_muted); font-size: 0.82rem; margin-bottom: 0.55rem; }
.progress-bar { height: 6px; border-radius: 3px; background: var(--_line); margin: 0 0 0.6rem; overflow: hidden; }
.progress-bar > span { display: block; height: 100%; background: var(--_done); }
.chips { display: grid; gap: 0.6rem; }
.chip { border: 1px solid var(--_chip-line); background: var(--_chip); border-radius: var(--_radius); padding: 0.65rem 0.75rem; min-width: 0; }
.chip-title { font-size: 0.92rem; display: flex; gap: 0.35rem; align-items: center; overflow-wrap: anywhere; }
.chip-title .icon { color: var(--_moved); }
.tldr { margin: 0.25rem 0; font-size: 0.86rem; overflow-wrap: anywhere; }
details { font-size: 0.84rem; color: var(--_muted); }
summary { cursor: pointer; }
.brief { white-space: pre-wrap; margin: 0.3rem 0; overflow-wrap: anywhere; }
.actions { display: flex; gap: 0.4rem; flex-wrap: wrap; margin-top: 0.45rem; }
.sub { font-size: 0.85rem; margin: 0.9rem 0 0.4rem; color: var(--_muted); }
.settled { display: grid; gap: 0.45rem; }
.settled-item { display: grid; grid-template-columns: auto minmax(0, 1fr) auto; gap: 0.15rem 0.6rem; align-items: center; font-size: 0.88rem; }
.settled-item .name { grid-column: 2; grid-row: 1; overflow-wrap: anywhere; }
.settled-item button { grid-column: 3; grid-row: 1; }
.outcome { display: inline-flex; gap: 0.25rem; align-items: center; font-size: 0.75rem; font-weight: 700; padding: 0.05rem 0.5rem;
  border-radius: 999px; border: 1px solid currentColor; }
.o-dismissed .outcome { color: var(--_removed); }
.o-drafted .outcome { color: var(--_changed); }
.o-started .outcome { color: var(--_done); }
.progress { grid-column: 2; grid-row: 2; font-size: 0.8rem; color: var(--_muted); }
.settled-item button { font-size: 0.8rem; min-height: 2rem; padding: 0.15rem 0.6rem; }
.empty { color: var(--_muted); font-size: 0.88rem; }

/* A person's edit: the card's mark, and <oda-plan editable>'s check boxes and form */
.by { font-size: 0.78rem; font-weight: 600; color: var(--_moved); border: 1px solid currentColor; border-radius: 999px; padding: 0 0.5rem; }
.todo.check { align-items: center; }
.todo.check > input { width: 1.15rem; height: 1.15rem; margin: 0; flex: none; accent-color: var(--_done); cursor: pointer; }
.todo.check > label { cursor: pointer; }
.check .line > .icon { width: 1.1em; height: 1.1em; }
.check.s-pending .icon { color: var(--_pending); }
.check.s-in_progress .icon { color: var(--_progress); }
.check.s-completed .icon { color: var(--_done); }
.edit-area { margin-top: 0.6rem; }
.editor { display: grid; gap: 0.6rem; }
.edit-rows { display: grid; gap: 0.5rem; }
.edit-row { display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: center; min-width: 0; }
select, input[type="text"] {
  font: inherit; font-size: 0.9rem; min-height: 2.25rem; padding: 0.25rem 0.5rem; border-radius: 8px;
  border: 1px solid var(--_button-line); background: var(--_surface); color: var(--_ink);
}
.edit-row select { flex: none; }
.edit-row input, .add-row input { flex: 1 1 9rem; min-width: 0; }
.row-buttons { display: inline-flex; gap: 0.25rem; margin-left: auto; }
.icon-button { min-width: 2.25rem; justify-content: center; padding: 0.3rem; }
button[aria-disabled="true"] { border-style: dashed; cursor: not-allowed; }
.add-row { display: flex; flex-wrap: wrap; gap: 0.4rem; }
.edit-message { margin-top: 0.5rem; font-size: 0.86rem; overflow-wrap: anywhere; }
`;
