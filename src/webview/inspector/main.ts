/**
 * The Context Inspector page. Renders what the extension sends (checked on arrival)
 * with lit templates, which escape every interpolated value, and the vscode-elements
 * components for native-looking controls. Only the visible page of the table is in
 * the DOM, so 2,000 candidates cost the same as 100.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { html, nothing, render, svg, type TemplateResult } from 'lit';
import { keyed } from 'lit/directives/keyed.js';
import { diffSnapshots, type BuildDiff, type BuildSnapshot } from '../../core/inspector/history';
import { ROW_STATUSES, type AgentFileOverlap, type AgentFilesView, type BarSegment, type InspectorModel, type ItemRow, type RowStatus } from '../../core/inspector/model';
import { parseHostMessage, parseWebviewState, type WebviewMessage, type WebviewState } from '../../core/inspector/protocol';
import { DEFAULT_QUERY, queryRows, SORT_KEYS, type SortKey } from '../../core/inspector/query';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;

type Tab = WebviewState['tab'];
const TABS: readonly Tab[] = ['items', 'agent', 'history'];

const restored = parseWebviewState(vscode.getState());
const ui = {
  tab: restored.tab ?? 'items',
  text: restored.text ?? '',
  statuses: (restored.statuses ?? []).filter((s): s is RowStatus => (ROW_STATUSES as readonly string[]).includes(s)),
  sort: (SORT_KEYS as readonly string[]).includes(restored.sort ?? '') ? (restored.sort as SortKey) : DEFAULT_QUERY.sort,
  descending: restored.descending ?? false,
  page: restored.page ?? 0,
  trialBudget: restored.trialBudget,
  /** History diff: 'current' or a log id. */
  diffFrom: '' as string,
  diffTo: 'current' as string,
};

let model: InspectorModel | undefined;
/** Per artifact, the applying agent files that already say (part of) it, for the items table. */
let overlapsByItem = new Map<string, Array<{ path: string; overlap: AgentFileOverlap }>>();
let empty: string | undefined;
let trial: { budget: number; tokensUsed: number; diff: BuildDiff } | undefined;
let notice: string | undefined;
let noticeTimer: ReturnType<typeof setTimeout> | undefined;

function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

function saveState(): void {
  const state: WebviewState = { tab: ui.tab, text: ui.text, statuses: ui.statuses, sort: ui.sort, descending: ui.descending, page: ui.page, ...(ui.trialBudget !== undefined ? { trialBudget: ui.trialBudget } : {}) };
  vscode.setState(state);
}

const nf = new Intl.NumberFormat();
const fmt = (n: number): string => nf.format(n);
const score = (n: number | undefined): string => (n === undefined ? '—' : n.toFixed(2));
const percent = (part: number, whole: number): string => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '—');
const share = (n: number): string => `${Math.round(n * 100)}%`;

function indexOverlaps(view: AgentFilesView | undefined): Map<string, Array<{ path: string; overlap: AgentFileOverlap }>> {
  const out = new Map<string, Array<{ path: string; overlap: AgentFileOverlap }>>();
  for (const file of view?.files ?? []) {
    if (!file.applies || file.kind === 'ledger') continue;
    for (const overlap of file.overlaps) {
      const list = out.get(overlap.id) ?? [];
      list.push({ path: file.path, overlap });
      out.set(overlap.id, list);
    }
  }
  return out;
}

function time(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

// ---------------------------------------------------------------- budget bar

function bar(segments: readonly BarSegment[], budget: number): TemplateResult {
  let x = 0;
  const rects = segments.map((s) => {
    const width = s.share * 1000;
    const rect = svg`<rect class="seg seg-${s.key}" data-key=${s.key} data-tokens=${s.tokens} x=${x} y="0" width=${width} height="24"><title>${segmentTip(s, budget)}</title></rect>`;
    x += width;
    return rect;
  });
  return html`<svg class="bar" viewBox="0 0 1000 24" preserveAspectRatio="none" role="img" aria-label=${segments.map((s) => segmentTip(s, budget)).join('; ')}>${rects}</svg>`;
}

function segmentTip(s: BarSegment, budget: number): string {
  if (s.key === 'headroom') return `${s.label}: ${fmt(s.tokens)} tokens (${percent(s.tokens, budget)})`;
  if (s.key === 'over') return `${s.label}: ${fmt(s.tokens)} tokens`;
  const extra = s.tokens > s.allotted ? `, +${fmt(s.tokens - s.allotted)} back-filled or always in` : '';
  return `${s.label}: ${fmt(s.tokens)} tokens (${percent(s.tokens, budget)} of the budget; its share ${fmt(s.allotted)}${extra})`;
}

function legend(segments: readonly BarSegment[]): TemplateResult {
  return html`<ul class="legend">
    ${segments.map((s) => html`<li data-key=${s.key}><span class="swatch seg-${s.key}"></span>${s.label} <strong>${fmt(s.tokens)}</strong></li>`)}
  </ul>`;
}

// ---------------------------------------------------------------- items

const STATUS_LABEL: Record<RowStatus, string> = { full: 'In full', preview: 'Preview', title: 'Title only', excluded: 'Left out' };
const COLUMNS: Array<{ key: SortKey | 'reason' | 'actions'; label: string; title?: string }> = [
  { key: 'title', label: 'Artifact' },
  { key: 'status', label: 'Status' },
  { key: 'type', label: 'Type' },
  { key: 'layer', label: 'Layer' },
  { key: 'tokens', label: 'Tokens', title: 'Tokens in the context; for a left-out artifact, what it would take in full' },
  { key: 'score', label: 'Score' },
  { key: 'reason', label: 'Why' },
  { key: 'actions', label: '' },
];

function components(row: ItemRow): string {
  if (!row.components) return '';
  return (Object.entries(row.components) as Array<[string, number]>)
    .filter(([, v]) => v !== 0)
    .map(([k, v]) => `${k} ${v > 0 ? '+' : ''}${v.toFixed(2)}`)
    .join(' · ');
}

function onSort(key: SortKey): void {
  if (ui.sort === key) ui.descending = !ui.descending;
  else {
    ui.sort = key;
    ui.descending = key === 'tokens' || key === 'score';
  }
  ui.page = 0;
  update();
}

function itemsTab(m: InspectorModel): TemplateResult {
  const page = queryRows(m.rows, { text: ui.text, statuses: ui.statuses, sort: ui.sort, descending: ui.descending, page: ui.page, pageSize: DEFAULT_QUERY.pageSize });
  ui.page = page.page;
  const first = page.total === 0 ? 0 : page.page * DEFAULT_QUERY.pageSize + 1;
  const last = page.page * DEFAULT_QUERY.pageSize + page.rows.length;
  const statusValue = ui.statuses.length === 0 ? 'all' : ui.statuses.length === 3 && !ui.statuses.includes('excluded') ? 'included' : ui.statuses[0]!;
  return html`
    <div class="toolbar">
      <vscode-textfield id="filter" placeholder="Filter by title, id, type, layer or reason" .value=${ui.text} @input=${(e: Event) => {
        ui.text = (e.target as HTMLInputElement).value;
        ui.page = 0;
        update();
      }}></vscode-textfield>
      ${keyed(
        // The select shows the label it read when it was made: a new one when the counts change.
        `${m.rows.length}|${ROW_STATUSES.map((s) => m.counts[s]).join('|')}`,
        html`<vscode-single-select id="status-filter" .value=${statusValue} @change=${(e: Event) => {
          const v = (e.target as HTMLSelectElement).value;
          ui.statuses = v === 'all' ? [] : v === 'included' ? ['full', 'preview', 'title'] : [v as RowStatus];
          ui.page = 0;
          update();
        }}>
          <vscode-option value="all">All (${fmt(m.rows.length)})</vscode-option>
          <vscode-option value="included">Included (${fmt(m.counts.full + m.counts.preview + m.counts.title)})</vscode-option>
          ${ROW_STATUSES.map((s) => html`<vscode-option value=${s}>${STATUS_LABEL[s]} (${fmt(m.counts[s])})</vscode-option>`)}
        </vscode-single-select>`,
      )}
      <span class="pager">
        <span id="range">${fmt(first)}–${fmt(last)} of ${fmt(page.total)}</span>
        <vscode-button secondary ?disabled=${page.page === 0} @click=${() => { ui.page--; update(); }}>Previous</vscode-button>
        <vscode-button secondary ?disabled=${page.page >= page.pages - 1} @click=${() => { ui.page++; update(); }}>Next</vscode-button>
      </span>
    </div>
    <div class="scroll rows"><table id="items" class="grid">
      <thead><tr>
        ${COLUMNS.map((c) => {
          const sortable = (SORT_KEYS as readonly string[]).includes(c.key);
          const active = ui.sort === c.key;
          return html`<th class=${`col-${c.key}${sortable ? ' sortable' : ''}`} title=${c.title ?? nothing} aria-sort=${active ? (ui.descending ? 'descending' : 'ascending') : 'none'}
            @click=${sortable ? () => onSort(c.key as SortKey) : nothing}>${c.label}${active ? (ui.descending ? ' ▾' : ' ▴') : ''}</th>`;
        })}
      </tr></thead>
      <tbody>
        ${page.rows.map((row) => itemRow(row))}
        ${page.rows.length === 0 ? html`<tr><td colspan="8" class="muted">${m.rows.length === 0 ? 'The ledger has no candidates for this context.' : 'No artifact matches the filter.'}</td></tr>` : nothing}
      </tbody>
    </table></div>`;
}

function tokensCell(row: ItemRow): TemplateResult | string {
  if (row.tokens === undefined) return '—';
  if (row.status !== 'excluded') return fmt(row.tokens);
  return html`<span class="would" title=${`Left out; it would take ${fmt(row.tokens)} tokens in full`}>${fmt(row.tokens)}</span>`;
}

function overlapPills(row: ItemRow): TemplateResult | typeof nothing {
  const found = overlapsByItem.get(row.id);
  if (!found) return nothing;
  return html`${found.map(
    ({ path, overlap }) =>
      html` <span class="pill pill-overlap" data-overlap=${path} title=${`${path} already says ${share(overlap.share)} of it (${overlap.how}): about ${fmt(overlap.tokens)} of its ${fmt(overlap.itemTokens)} tokens are read twice`}>⚠ ${share(overlap.share)} also in ${path}</span>`,
  )}`;
}

function itemRow(row: ItemRow): TemplateResult {
  return html`<tr data-id=${row.id} data-status=${row.status} class=${`status-${row.status}`}>
    <td class="col-title"><a href="#" title=${row.id} @click=${(e: Event) => { e.preventDefault(); post({ type: 'openArtifact', id: row.id }); }}>${row.title}</a>
      <div class="narrow-meta">${row.type} · ${row.layer ?? '—'} · score ${score(row.score)}</div></td>
    <td class="col-status"><span class="pill pill-${row.status}">${STATUS_LABEL[row.status]}</span></td>
    <td class="col-type">${row.type}</td>
    <td class="col-layer">${row.layer ?? '—'}</td>
    <td class="col-tokens num">${tokensCell(row)}</td>
    <td class="col-score num" title=${components(row)}>${score(row.score)}<div class="components">${components(row)}</div></td>
    <td class="col-reason">${row.reason}${row.redacted ? html` <span class="pill">secrets masked</span>` : nothing}${overlapPills(row)}</td>
    <td class="col-actions">
      ${row.pinned
        ? html`<vscode-button secondary title="Unpin: let it compete on its score" aria-label=${`Unpin ${row.title}`} @click=${() => post({ type: 'pin', id: row.id, pinned: false })}>Unpin</vscode-button>`
        : html`<vscode-button secondary title="Pin: always in the context" aria-label=${`Pin ${row.title}`} @click=${() => post({ type: 'pin', id: row.id, pinned: true })}>Pin</vscode-button>`}
      <vscode-button secondary title="Mark useful" aria-label=${`Mark ${row.title} useful`} @click=${() => post({ type: 'feedback', id: row.id, verdict: 'useful' })}>+1</vscode-button>
      <vscode-button secondary title="Mark not useful" aria-label=${`Mark ${row.title} not useful`} @click=${() => post({ type: 'feedback', id: row.id, verdict: 'not_useful' })}>−1</vscode-button>
    </td>
  </tr>`;
}

// ---------------------------------------------------------------- try budget

function tryBudget(m: InspectorModel): TemplateResult {
  const value = ui.trialBudget ?? m.budget * 2;
  return html`<div class="try">
    <label for="trial-budget">Try a budget of</label>
    <vscode-textfield id="trial-budget" type="number" min="0" .value=${String(value)} @change=${(e: Event) => {
      const n = Number((e.target as HTMLInputElement).value);
      if (Number.isInteger(n) && n >= 0) {
        ui.trialBudget = n;
        saveState();
      }
    }}></vscode-textfield>
    <vscode-button id="trial-run" @click=${() => post({ type: 'tryBudget', budget: ui.trialBudget ?? value })}>See the difference</vscode-button>
    ${trial ? html`<vscode-button secondary id="trial-apply" @click=${() => trial && post({ type: 'setBudget', budget: trial.budget })}>Use ${fmt(trial.budget)} as the budget</vscode-button>` : nothing}
    ${trial ? html`<div id="trial-result"><p>At <strong>${fmt(trial.budget)}</strong> tokens the context would use <strong>${fmt(trial.tokensUsed)}</strong> (now ${fmt(m.tokensUsed)} of ${fmt(m.budget)}).</p>${diffTable(trial.diff)}</div>` : nothing}
  </div>`;
}

function diffTable(diff: BuildDiff): TemplateResult {
  if (diff.entries.length === 0) return html`<p class="muted diff-none">The same artifacts, in the same form.</p>`;
  const label = { in: 'Came in', out: 'Went out', mode: 'Changed' } as const;
  return html`<div class="scroll"><table class="grid diff">
    <thead><tr><th>Change</th><th>Artifact</th><th>Before → after</th><th class="num">Tokens</th><th>Why</th></tr></thead>
    <tbody>${diff.entries.map(
      (e) => html`<tr data-id=${e.id} data-change=${e.change}>
        <td><span class="pill pill-${e.change}">${label[e.change]}</span></td>
        <td><a href="#" @click=${(ev: Event) => { ev.preventDefault(); post({ type: 'openArtifact', id: e.id }); }}>${e.title}</a></td>
        <td>${e.before} → ${e.after}</td>
        <td class="num">${fmt(e.tokensBefore)} → ${fmt(e.tokensAfter)}</td>
        <td>${e.why}</td>
      </tr>`,
    )}</tbody>
  </table></div>`;
}

// ---------------------------------------------------------------- agent files

function agentTab(m: InspectorModel): TemplateResult {
  const view: AgentFilesView | undefined = m.agentFiles;
  if (!view) return html`<p class="muted">Reading the workspace's agent files…</p>`;
  return html`
    <p id="agent-total">
      Before your prompt the agent reads <strong>${fmt(view.totalTokens)}</strong> tokens: the ledger block (${fmt(view.ledgerTokens)})
      plus always-on files (${fmt(view.alwaysOnTokens)}), counted with ${m.tokenizer}.
      ${view.overlapTokens > 0 ? html`<span class="warn">${fmt(view.overlapTokens)} ledger tokens repeat what those files already say.</span>` : nothing}
    </p>
    ${view.files.length === 0
      ? html`<p class="muted">No agent rule files in this workspace (.github/copilot-instructions.md, .github/instructions/*.instructions.md, AGENTS.md, CLAUDE.md, .cursor/rules, .clinerules, .cline/rules).</p>`
      : html`<div class="scroll"><table id="agent-files" class="grid">
          <thead><tr><th>File</th><th>Loaded</th><th>Why</th><th class="num">Tokens</th><th class="num">chars/4</th><th>Also in the ledger block</th></tr></thead>
          <tbody>${view.files.map(
            (f) => html`<tr data-path=${f.path} data-applies=${String(f.applies)}>
              <td><a href="#" @click=${(e: Event) => { e.preventDefault(); post({ type: 'openFile', path: f.path }); }}>${f.path}</a></td>
              <td>${f.kind === 'ledger' ? html`<span class="pill">ledger</span>` : f.applies ? html`<span class="pill pill-full">always</span>` : html`<span class="pill pill-excluded">not now</span>`}</td>
              <td>${f.why}</td>
              <td class="num">${fmt(f.tokens)}</td>
              <td class="num">${fmt(f.estimate)}</td>
              <td>${f.overlaps.length === 0
                ? '—'
                : f.overlaps.map(
                    (o) => html`<div class="overlap" data-id=${o.id} data-share=${o.share} title=${`About ${fmt(o.tokens)} of the artifact's ${fmt(o.itemTokens)} tokens repeat this file`}>⚠ ${o.title} (${share(o.share)}, ${fmt(o.tokens)} of ${fmt(o.itemTokens)} tokens, ${o.how})</div>`,
                  )}</td>
            </tr>`,
          )}</tbody>
        </table></div>`}`;
}

// ---------------------------------------------------------------- history

function snapshotFor(m: InspectorModel, key: string): BuildSnapshot | undefined {
  if (key === 'current') return m.current;
  return m.history.find((h) => String(h.id) === key)?.snapshot;
}

function historyTab(m: InspectorModel): TemplateResult {
  if (m.history.length === 0) return html`<p class="muted">No logged builds yet: "Context Ledger: Build agent context" logs one each time.</p>`;
  const builds = [...m.history].reverse();
  const max = Math.max(1, ...builds.map((h) => Math.max(h.budget, h.tokensUsed)));
  const w = 1000 / Math.max(builds.length, 1);
  if (!ui.diffFrom || !snapshotFor(m, ui.diffFrom)) ui.diffFrom = String(m.history[0]!.id);
  const from = snapshotFor(m, ui.diffFrom);
  const to = snapshotFor(m, ui.diffTo) ?? m.current;
  const diff = from ? diffSnapshots(from, to, m.titles) : undefined;
  const option = (value: string, label: string): TemplateResult => html`<vscode-option value=${value}>${label}</vscode-option>`;
  const options = [option('current', 'Now (live)'), ...m.history.map((h) => option(String(h.id), `#${h.id} ${time(h.at)} · ${h.trigger} · ${fmt(h.tokensUsed)}/${fmt(h.budget)}`))];
  const pick = (id: number): void => {
    ui.diffFrom = String(id);
    update();
  };
  const first = builds[0]!;
  const last = builds[builds.length - 1]!;
  return html`
    <p class="muted tl-caption">Tokens used by the last ${fmt(builds.length)} logged builds, from #${first.id} (${time(first.at)}) on the left${builds.length > 1 ? ` to #${last.id} (${time(last.at)}) on the right` : ''}; the line over each bar is its budget. Click a bar to compare that build.</p>
    <svg class="timeline" viewBox="0 0 1000 80" preserveAspectRatio="none" role="img" aria-label="Tokens used per logged build">
      ${builds.map((h, i) => {
        const height = (h.tokensUsed / max) * 76;
        const budgetY = 80 - (h.budget / max) * 76;
        const selected = String(h.id) === ui.diffFrom;
        return svg`<g class="tl-build" @click=${() => pick(h.id)}>
          <rect class="tl-hit" x=${i * w} y="0" width=${w} height="80"></rect>
          <rect class=${selected ? 'tl-bar tl-selected' : 'tl-bar'} data-id=${h.id} x=${i * w + w * 0.1} y=${80 - height} width=${w * 0.8} height=${height}></rect>
          <rect class="tl-budget" x=${i * w + w * 0.05} y=${Math.max(0, budgetY - 1)} width=${w * 0.9} height="2"></rect>
          <title>#${h.id} ${time(h.at)} (${h.trigger}): ${fmt(h.tokensUsed)} of ${fmt(h.budget)} tokens, ${fmt(h.snapshot.included.length)} artifacts. Click to compare.</title>
        </g>`;
      })}
    </svg>
    <div class="toolbar">
      <label>Compare</label>
      <vscode-single-select id="diff-from" .value=${ui.diffFrom} @change=${(e: Event) => { ui.diffFrom = (e.target as HTMLSelectElement).value; update(); }}>${options}</vscode-single-select>
      <label>with</label>
      <vscode-single-select id="diff-to" .value=${ui.diffTo} @change=${(e: Event) => { ui.diffTo = (e.target as HTMLSelectElement).value; update(); }}>${options}</vscode-single-select>
    </div>
    ${diff ? html`<p>${fmt(diff.tokensBefore)} → ${fmt(diff.tokensAfter)} tokens in artifacts.</p>${diffTable(diff)}` : nothing}`;
}

// ---------------------------------------------------------------- page

function page(m: InspectorModel): TemplateResult {
  const included = m.counts.full + m.counts.preview + m.counts.title;
  const e = m.estimate;
  return html`
    <header>
      <h1>Context Inspector <span class="muted">${m.folderName}</span></h1>
      <p id="summary" data-paths=${JSON.stringify(m.paths)} data-used=${m.tokensUsed} data-budget=${m.budget} data-included=${included} data-excluded=${m.counts.excluded} data-candidates=${m.candidates}>
        <strong>${fmt(m.tokensUsed)}</strong> of ${fmt(m.budget)} tokens (${percent(m.tokensUsed, m.budget)}, ${m.tokenizer}) ·
        ${fmt(m.counts.full)} in full · ${fmt(m.counts.preview)} as preview · ${fmt(m.counts.title)} as title · ${fmt(m.counts.excluded)} left out
        · ${fmt(m.candidates)} candidates
      </p>
      <p class="muted">
        ${m.task ? html`Task: ${m.task.title}${m.task.stage ? ` (${m.task.stage})` : ''} · ` : 'No active task · '}
        Files: ${m.paths.length > 0 ? m.paths.slice(0, 5).join(', ') + (m.paths.length > 5 ? ` and ${m.paths.length - 5} more` : '') : 'none'} ·
        built ${time(m.builtAt)} in ${m.durationMs.toFixed(0)} ms
        ${m.redactions > 0 ? html` · <span class="warn">${m.redactions} secrets masked</span>` : nothing}
      </p>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : nothing}
    </header>
    <section aria-label="Budget by layer">
      ${bar(m.segments, m.budget)}
      ${legend(m.segments)}
      <p id="estimate" data-estimate=${e.estimate} data-real=${e.real}>
        Estimate vs real: chars/4 says <strong>${fmt(e.estimate)}</strong> tokens for ${fmt(e.chars)} characters; ${m.tokenizer} counts <strong>${fmt(e.real)}</strong>
        (${e.error === 0 ? 'exact' : `${e.error > 0 ? 'over' : 'under'} by ${fmt(Math.abs(e.error))}, ${Math.round(e.errorShare * 100)}%`}).
      </p>
      ${tryBudget(m)}
    </section>
    <vscode-tabs .selectedIndex=${TABS.indexOf(ui.tab)} @vsc-tabs-select=${(ev: CustomEvent<{ selectedIndex: number }>) => {
      const tab = TABS[ev.detail.selectedIndex];
      if (tab && tab !== ui.tab) {
        ui.tab = tab;
        update();
      }
    }}>
      <vscode-tab-header slot="header" data-tab="items">Items <vscode-badge variant="counter">${fmt(m.rows.length)}</vscode-badge></vscode-tab-header>
      <vscode-tab-panel>${ui.tab === 'items' ? itemsTab(m) : nothing}</vscode-tab-panel>
      <vscode-tab-header slot="header" data-tab="agent" aria-label="What the agent sees"><span class="wide-only">What the agent sees</span><span class="narrow-only">Agent sees</span></vscode-tab-header>
      <vscode-tab-panel>${ui.tab === 'agent' ? agentTab(m) : nothing}</vscode-tab-panel>
      <vscode-tab-header slot="header" data-tab="history">History <vscode-badge variant="counter">${fmt(m.history.length)}</vscode-badge></vscode-tab-header>
      <vscode-tab-panel>${ui.tab === 'history' ? historyTab(m) : nothing}</vscode-tab-panel>
    </vscode-tabs>`;
}

function update(): void {
  saveState();
  if (model) render(page(model), root);
  else render(html`<p class="muted" id="empty">${empty ?? 'Building the context…'}</p>`, root);
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = parseHostMessage(event.data);
  if (!message) return;
  switch (message.type) {
    case 'model':
      // A trial compares with the current budget; a new budget makes it stale.
      if (model && model.budget !== message.model.budget) trial = undefined;
      model = message.model;
      overlapsByItem = indexOverlaps(model.agentFiles);
      empty = undefined;
      break;
    case 'empty':
      model = undefined;
      empty = message.reason;
      break;
    case 'trial':
      trial = message;
      break;
    case 'notice':
      notice = message.text;
      clearTimeout(noticeTimer);
      noticeTimer = setTimeout(() => {
        notice = undefined;
        update();
      }, 5000);
      break;
  }
  update();
});

update();
post({ type: 'ready' });
