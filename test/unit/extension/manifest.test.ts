/**
 * The manifest and the code agree: every command the extension declares in ids.ts is
 * contributed (with a category), and every menu, keybinding and welcome link points at a
 * declared command, so no menu item is dead and no command is unreachable.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AGENT_COMMANDS, REVIEW_ITEM_CONTEXT } from '../../../src/extension/agent/ids';
import { INTEROP_COMMANDS } from '../../../src/extension/interop/ids';
import { CATEGORY, COMMAND_IDS as CORE_COMMAND_IDS, TREE_ITEM_KINDS } from '../../../src/extension/ids';
import { DEFAULT_ASSEMBLE_OPTIONS } from '../../../src/core/assemble';
import { readConfig } from '../../../src/extension/configModel';
import { AGENT_SETTINGS } from '../../../src/extension/agent/ids';
import { WORKSPACE_SCHEME_WHEN } from '../../../src/extension/workspaceUris';
import { formatOf } from '../../../src/core/formats/detect';
import { Minimatch } from 'minimatch';
import { contributedSettings } from '../helpers';

interface Manifest {
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    menus: Record<string, { command: string; when?: string; group?: string }[]>;
    keybindings?: { command: string }[];
    viewsWelcome: { contents: string }[];
  };
}

const root = path.resolve(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
/** Feature areas keep their ids beside their code (agent/ids.ts, interop/ids.ts); the manifest must agree with all of them. */
const COMMAND_IDS: readonly string[] = [...CORE_COMMAND_IDS, ...Object.values(AGENT_COMMANDS), ...Object.values(INTEROP_COMMANDS)];
const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
/** Declared ids not (yet) offered anywhere. */
const NOT_CONTRIBUTED = new Set(['contextLedger.toggleAutoInject', AGENT_COMMANDS.rememberSave]);

test('every command in ids.ts is contributed, with the category', () => {
  for (const id of COMMAND_IDS) {
    if (NOT_CONTRIBUTED.has(id)) continue;
    assert.ok(contributed.has(id), `${id} is not in contributes.commands`);
  }
  for (const c of manifest.contributes.commands) {
    assert.ok(COMMAND_IDS.includes(c.command), `${c.command} is contributed but not declared in ids.ts`);
    assert.equal(c.category, CATEGORY, `${c.command} has the category`);
    assert.ok(c.title.trim().length > 0);
  }
});

test('menus, keybindings and welcome links name contributed commands', () => {
  for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
    for (const entry of entries) assert.ok(contributed.has(entry.command), `${menu}: ${entry.command} is not contributed`);
  }
  for (const k of manifest.contributes.keybindings ?? []) assert.ok(contributed.has(k.command), `keybinding: ${k.command}`);
  for (const w of manifest.contributes.viewsWelcome) {
    for (const m of w.contents.matchAll(/\(command:([\w.]+)\)/g)) {
      const id = m[1]!;
      assert.ok(contributed.has(id) || id.startsWith('workbench.'), `welcome link to ${id}`);
    }
  }
});

test('viewItem when-clauses match contextValues the trees set', () => {
  const kinds = [...(Object.values(TREE_ITEM_KINDS) as string[]), REVIEW_ITEM_CONTEXT];
  for (const entry of manifest.contributes.menus['view/item/context'] ?? []) {
    const when = entry.when ?? '';
    const exact = /viewItem == ([\w.]+)/.exec(when);
    if (exact) assert.ok(kinds.includes(exact[1]!), `${entry.command}: no tree item has contextValue ${exact[1]}`);
    const regex = /viewItem =~ \/(.+?)\/(?:\s|$)/.exec(when);
    if (regex) {
      const re = new RegExp(regex[1]!);
      assert.ok(kinds.some((k) => re.test(k)), `${entry.command}: /${regex[1]}/ matches no contextValue`);
    }
  }
});

test('commands acting on a tree item are hidden from the palette or can ask for their target', () => {
  const palette = new Map((manifest.contributes.menus.commandPalette ?? []).map((e) => [e.command, e.when]));
  // These open or change one artifact and need the tree item: they must not be offered bare.
  for (const id of ['openArtifact', 'copyUrn', 'pin', 'unpin', 'archive', 'deleteArtifact', 'markUseful', 'markNotUseful', 'addModuleMemoryForPath']) {
    assert.equal(palette.get(`contextLedger.${id}`), 'false', `contextLedger.${id} is hidden from the palette`);
  }
});

test('the scoring settings name the defaults the assembler uses', () => {
  const properties = contributedSettings<{ markdownDescription?: string }>();
  const weights = properties['contextLedger.weights']?.markdownDescription ?? '';
  for (const [name, value] of Object.entries(DEFAULT_ASSEMBLE_OPTIONS.weights)) {
    const named = `\`${name}\` ${value}`;
    assert.ok(weights.includes(`${named},`) || weights.endsWith(`${named}.`), `contextLedger.weights names ${name} ${value}`);
  }
  assert.ok(properties['contextLedger.recencyHalfLifeDays']?.markdownDescription?.includes(`${DEFAULT_ASSEMBLE_OPTIONS.halfLifeDays} days`));
});

test('menus on a file offer themselves for local, remote and virtual files alike', () => {
  // `resourceScheme == file` hides a menu in SSH, WSL, containers, Codespaces and code-server
  // (the workbench sees vscode-remote:) and in github.dev (vscode-vfs:).
  const scheme = (when: string | undefined) => /resourceScheme\s*(==|=~)\s*(\S+)/.exec(when ?? '');
  let seen = 0;
  for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
    for (const entry of entries) {
      const found = scheme(entry.when);
      if (!found) continue;
      seen++;
      assert.ok(entry.when!.includes(WORKSPACE_SCHEME_WHEN), `${menu}: ${entry.command} tests the scheme with ${found[0]}, not ${WORKSPACE_SCHEME_WHEN}`);
    }
  }
  assert.ok(seen >= 5, 'the file menus (editor, Explorer, palette) test the scheme');
  const re = new RegExp(/\/(.+)\//.exec(WORKSPACE_SCHEME_WHEN)![1]!);
  for (const s of ['file', 'vscode-remote', 'vscode-vfs']) assert.ok(re.test(s), s);
  for (const s of ['untitled', 'output', 'git', 'vscode-userdata', 'file2']) assert.ok(!re.test(s), s);
});

test('the extension activates where there is something to do: a ledger or a knowledge file Import Knowledge reads', () => {
  const events = (manifest as unknown as { activationEvents: string[] }).activationEvents;
  assert.ok(!events.includes('onStartupFinished') && !events.includes('*'), 'not in every window');
  const globs = events.filter((e) => e.startsWith('workspaceContains:')).map((e) => new Minimatch(e.slice('workspaceContains:'.length), { dot: true }));
  const activates = (p: string) => globs.some((g) => g.match(p));
  for (const ledgerFile of ['.context-ledger/ledger.db', '.context-ledger/artifacts/adr/adr-001.md']) assert.ok(activates(ledgerFile), ledgerFile);
  const knowledge = [
    'AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md', '.github/instructions/ts.instructions.md', '.cursorrules',
    '.cursor/rules/style.mdc', '.clinerules', '.claude/rules/tests.md', '.context/DECISIONS.md',
    'docs/adr/0001-use-sqlite.md', 'doc/adr/0002-x.md', 'docs/decisions/0003-y.md', 'adr/0004-z.md',
  ];
  for (const p of knowledge) {
    assert.ok(formatOf(p) !== null, `${p} is a knowledge file Import Knowledge reads`);
    assert.ok(activates(p), `a workspace with ${p} activates the extension`);
  }
  for (const p of ['README.md', 'src/app.ts', 'docs/guide.md']) assert.ok(!activates(p), `${p} alone does not`);
});

test('settings come in titled sections: the budget first, the ranking knobs last, in an advanced one', () => {
  const sections = (manifest as unknown as { contributes: { configuration: { title: string; order: number; properties: Record<string, unknown> }[] } }).contributes.configuration;
  assert.ok(Array.isArray(sections) && sections.length >= 5, 'contributes.configuration is a list of sections');
  for (const section of sections) {
    assert.ok(section.title.trim().length > 0 && Object.keys(section.properties).length > 0, `section ${section.title} has a title and settings`);
  }
  const ordered = [...sections].sort((a, b) => a.order - b.order);
  assert.ok('contextLedger.budget' in ordered[0]!.properties, 'the budget is in the first section');
  const last = ordered[ordered.length - 1]!;
  assert.match(last.title, /advanced/i);
  for (const knob of ['weights', 'scopeSplit', 'typePriority', 'recencyHalfLifeDays']) assert.ok(`contextLedger.${knob}` in last.properties, `${knob} is in ${last.title}`);
  const names = sections.flatMap((section) => Object.keys(section.properties));
  assert.equal(new Set(names).size, names.length, 'no setting is in two sections');
});

test('every contributed setting is read by the extension, and every setting it reads is contributed', () => {
  const read = new Set<string>();
  readConfig((name) => {
    read.add(name);
    return undefined;
  });
  // The agent features read theirs per folder, where they act (agent/index.ts, mcpProvider.ts, inboxWatcher.ts).
  for (const name of Object.values(AGENT_SETTINGS)) read.add(name);
  const contributedNames = Object.keys(contributedSettings()).map((name) => name.slice('contextLedger.'.length));
  for (const name of contributedNames) assert.ok(read.has(name), `contextLedger.${name} is contributed but nothing reads it`);
  for (const name of read) assert.ok(contributedNames.includes(name), `contextLedger.${name} is read but not contributed`);
});
