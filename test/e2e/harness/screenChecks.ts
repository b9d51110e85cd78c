import type { Frame, Page } from 'playwright-core';
import { withFailureScreenshot } from './screenshots';

// ---------------------------------------------------------------------------
// What a person would call broken on a screen of ours: a cut label, literal markup, a
// clipped control, a page that scrolls sideways. Checked in the page itself (one evaluate
// per screen), on the parts of the workbench the extension draws: its views in the side
// bar, its notifications and dialogs, its quick picks, its editor tabs, and the Context
// Inspector's webview.
// ---------------------------------------------------------------------------

/** The extension's views, by the title their pane header shows. */
export const OUR_VIEWS: readonly string[] = ['Artifacts', 'Active Task', 'Tracked Files', 'Needs Review'];

export interface ScreenProblems {
  /** Text cut with an ellipsis (`scrollWidth > clientWidth` under `text-overflow: ellipsis`); in a row of a list or tree, its label or its description. */
  cut: string[];
  /** Backticks, `**`, `<b>` or `[text](target)` shown as text. */
  markup: string[];
  /** A button or input whose box leaves the viewport or a container that clips it. */
  clipped: string[];
  /** The page (or a table's scroller) scrolls sideways. */
  sideways: string[];
}

export interface ScreenScope {
  /** Check the open quick input too (it is the extension's own). */
  quickInput?: boolean;
  /** Editor tab labels that are ours (e.g. "Context Inspector"). */
  tabs?: string[];
  /** Check the modal dialog too (it is the extension's own). */
  dialog?: boolean;
}

/**
 * The in-page check, as source: `test/e2e` compiles without the DOM library, and the same
 * text runs in the workbench and in the webview frame. `roots` are CSS selectors; `views`
 * pane titles; each match is scanned.
 */
const CHECK_SOURCE = String.raw`(opts) => {
  const out = { cut: [], markup: [], clipped: [], sideways: [] };
  const roots = [];
  for (const sel of opts.roots) for (const el of document.querySelectorAll(sel)) roots.push(el);
  for (const pane of document.querySelectorAll('.pane')) {
    const title = (pane.querySelector('.pane-header h3.title')?.textContent || '').trim().toLowerCase();
    if (opts.views.some((v) => v.toLowerCase() === title)) roots.push(pane);
  }
  for (const tab of document.querySelectorAll('.tabs-container .tab')) {
    const label = (tab.getAttribute('aria-label') || tab.textContent || '').trim();
    if (opts.tabs.some((t) => label.startsWith(t))) roots.push(tab);
  }
  for (const toast of document.querySelectorAll('.notifications-toasts .notification-list-item')) {
    // Ours: its source says so, or (a toast cut to one line shows no source) its message does.
    const source = toast.querySelector('.notification-list-item-source')?.textContent || '';
    const message = (toast.querySelector('.notification-list-item-message')?.textContent || '').trim();
    if (/Context Ledger/.test(source) || message.startsWith('Context Ledger')) roots.push(toast);
  }
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const say = (el) => ((el.getAttribute('aria-label') || el.textContent || el.value || el.placeholder || el.tagName) + '').replace(/\s+/g, ' ').trim().slice(0, 100);
  // A row of a list or tree (label, then description) cut at its right edge: which of the two is
  // cut. The ellipsis takes the end of the row: a label that ends closer to the edge than the width
  // of "…" loses its last letters to it ("This is NOT the Next.js you kno…") though its box ends
  // inside the row.
  const canvas = document.createElement('canvas').getContext('2d');
  const cutText = (el) => {
    const name = el.querySelector('.label-name');
    if (!name) return say(el) + ' (' + el.clientWidth + ' of ' + el.scrollWidth + ' px)';
    const box = el.getBoundingClientRect();
    canvas.font = getComputedStyle(el).font;
    const shown = box.right - parseFloat(getComputedStyle(el).paddingRight || '0') - canvas.measureText('…').width + 0.5;
    const label = (name.textContent || '').trim();
    const nameBox = name.getBoundingClientRect();
    if (nameBox.right > shown) return 'label "' + label + '" (' + Math.max(0, Math.round(shown - nameBox.left)) + ' of ' + Math.round(nameBox.width) + ' px shown)';
    const desc = el.querySelector('.label-description');
    if (!desc || (desc.textContent || '').trim() === '') return '';
    const range = document.createRange();
    range.selectNodeContents(desc);
    return range.getBoundingClientRect().right > shown ? 'description of "' + label + '": "' + desc.textContent.trim() + '" (' + Math.max(0, Math.round(shown - range.getBoundingClientRect().left)) + ' of ' + Math.round(range.getBoundingClientRect().width) + ' px shown)' : '';
  };
  // Bold is **text** (a glob's ** is not), code a backtick, a link [text](target).
  const MARKUP = [/\x60/, /\*\*[^\s*\/][^*\n]*\*\*/, /<\/?b>/i, /\[[^\]\n]+\]\([^)\n]+\)/];
  const seen = new Set();
  for (const root of roots) {
    if (!visible(root)) continue;
    const text = (root.innerText || '').split('\n');
    for (const line of text) if (MARKUP.some((m) => m.test(line)) && !seen.has('m' + line)) { seen.add('m' + line); out.markup.push(line.trim().slice(0, 160)); }
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (!visible(el)) continue;
      const s = getComputedStyle(el);
      if (s.textOverflow === 'ellipsis' && s.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1 && (el.textContent || '').trim() !== '') {
        const what = cutText(el);
        if (what && !seen.has('c' + what)) { seen.add('c' + what); out.cut.push(what); }
      }
      if (!el.matches('button, input:not([type=hidden]), select, textarea, .monaco-button, [role=button]')) continue;
      if (el.closest('.monaco-scrollable-element > .scrollbar, .monaco-action-bar .actions-container')) continue;
      const r = el.getBoundingClientRect();
      const problems = [];
      const scrolls = !!el.closest('.monaco-scrollable-element');
      if (r.left < -1 || r.right > innerWidth + 1) problems.push('outside the window (' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + innerWidth + ' px)');
      let scrollsY = scrolls;
      for (let p = el.parentElement; p && p !== document.documentElement; p = p.parentElement) {
        const ps = getComputedStyle(p);
        // Inside a box that scrolls up and down, what is below its edge is scrolled to, not cut.
        if (ps.overflowY === 'auto' || ps.overflowY === 'scroll') scrollsY = true;
        const clipsX = ps.overflowX !== 'visible';
        const hidesY = ps.overflowY === 'hidden' || ps.overflowY === 'clip';
        if (!clipsX && !hidesY) continue;
        const pr = p.getBoundingClientRect();
        if (clipsX && (r.left < pr.left - 1 || r.right > pr.right + 1)) { problems.push('cut sideways by ' + (p.className || p.tagName)); break; }
        // Scrolled out of a pane that scrolls (VS Code's own scroller hides with overflow: hidden) is not cut.
        if (hidesY && !scrollsY && r.top < pr.bottom && (r.top < pr.top - 1 || r.bottom > pr.bottom + 1)) { problems.push('cut off by ' + (p.className || p.tagName)); break; }
      }
      if (problems.length) out.clipped.push(say(el) + ': ' + problems.join(', '));
    }
  }
  for (const sel of opts.scrollers) {
    for (const el of document.querySelectorAll(sel)) {
      if (el.scrollWidth > el.clientWidth + 1) out.sideways.push(sel + ' scrolls sideways: ' + el.scrollWidth + ' > ' + el.clientWidth + ' px');
    }
  }
  return out;
}`;

interface CheckOptions {
  roots: string[];
  views: readonly string[];
  tabs: string[];
  scrollers: string[];
}

async function runCheck(target: Page | Frame, opts: CheckOptions): Promise<ScreenProblems> {
  return target.evaluate<ScreenProblems>(`(${CHECK_SOURCE})(${JSON.stringify(opts)})`);
}

/** The workbench's parts that are the extension's: its views, toasts, and (per `scope`) its quick input, dialog and tabs. */
export async function workbenchProblems(page: Page, scope: ScreenScope = {}): Promise<ScreenProblems> {
  const roots: string[] = [];
  if (scope.quickInput) roots.push('.quick-input-widget');
  if (scope.dialog) roots.push('.monaco-dialog-box');
  return runCheck(page, { roots, views: OUR_VIEWS, tabs: scope.tabs ?? [], scrollers: [] });
}

/** The frame that holds the Context Inspector's page (two iframes deep in the workbench), if it is open. */
export async function inspectorFrame(page: Page): Promise<Frame | undefined> {
  for (const frame of page.frames()) {
    if (await frame.evaluate<boolean>('!!document.getElementById("summary")').catch(() => false)) return frame;
  }
  return undefined;
}

/** The Context Inspector's page: everything on it, and neither it nor its items table may scroll sideways. */
export async function inspectorProblems(frame: Frame): Promise<ScreenProblems> {
  return runCheck(frame, { roots: ['body'], views: [], tabs: [], scrollers: ['html', '.scroll.rows'] });
}

/** Joins the problems of several screens; empty when there are none. */
export function describeProblems(problems: ScreenProblems): string[] {
  return [
    ...problems.cut.map((p) => `cut: ${p}`),
    ...problems.markup.map((p) => `literal markup: ${p}`),
    ...problems.clipped.map((p) => `clipped control: ${p}`),
    ...problems.sideways.map((p) => `sideways scroll: ${p}`),
  ];
}

export interface ScreenReport {
  /** What a person would call broken, one line each. */
  problems: string[];
}

/**
 * The screen as it is now: the workbench parts of the extension (per `scope`) and, when it is
 * open and visible, the Context Inspector.
 */
export async function screenReport(page: Page, scope: ScreenScope = {}): Promise<ScreenReport> {
  const found = [await workbenchProblems(page, scope)];
  const frame = await inspectorFrame(page);
  if (frame && (await frame.evaluate<boolean>('document.visibilityState === "visible" && innerWidth > 0').catch(() => false))) {
    const inner = await inspectorProblems(frame);
    found.push({ cut: inner.cut.map((p) => `Inspector: ${p}`), markup: inner.markup.map((p) => `Inspector: ${p}`), clipped: inner.clipped.map((p) => `Inspector: ${p}`), sideways: inner.sideways.map((p) => `Inspector: ${p}`) });
  }
  return { problems: found.flatMap(describeProblems) };
}

/** Throws, with a screenshot, naming each problem screenReport finds. */
export async function assertScreenClean(page: Page, step: string, scope: ScreenScope = {}): Promise<void> {
  await withFailureScreenshot(page, `screen-${step}`, async () => {
    const { problems } = await screenReport(page, scope);
    if (problems.length > 0) throw new Error(`${step}: ${problems.length} problem(s) a person would see:\n  ${problems.join('\n  ')}`);
  });
}
