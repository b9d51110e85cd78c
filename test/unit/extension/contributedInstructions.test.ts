/**
 * The chat instructions and prompt files the extension contributes (current VS Code reads
 * them from the package instead of a file in the repository): the version gate that
 * decides whether auto-inject still writes its file, and the files themselves — shipped,
 * inside the package, naming only tools the extension registers.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONTRIBUTED_INSTRUCTIONS_SINCE, editorReadsContributedInstructions } from '../../../src/extension/contributedInstructions';
import { packageManifest, ROOT } from '../helpers';

interface Manifest {
  contributes: {
    chatInstructions?: { path: string; when?: string }[];
    chatPromptFiles?: { path: string }[];
    languageModelTools: { name: string; toolReferenceName?: string }[];
  };
}

test('the engine minimum (1.100) writes the auto-inject file; the version the contribution was seen working in does not', () => {
  assert.equal(editorReadsContributedInstructions('1.100.3'), false);
  assert.equal(editorReadsContributedInstructions('1.138.9'), false);
  assert.equal(editorReadsContributedInstructions(CONTRIBUTED_INSTRUCTIONS_SINCE), true);
  assert.equal(editorReadsContributedInstructions('1.139.1'), true);
  assert.equal(editorReadsContributedInstructions('1.140.0-insider'), true);
  assert.equal(editorReadsContributedInstructions('2.0.0'), true);
});

test('a version that cannot be read keeps the file (the behaviour that works in every editor)', () => {
  for (const version of ['', 'latest', '1.139', 'v1.139.1', '１.１３９.１']) {
    assert.equal(editorReadsContributedInstructions(version), false, version);
  }
});

test('the contributed files exist inside media/ (packaged), and the instructions follow the auto-inject setting and trust', () => {
  const manifest = packageManifest<Manifest>();
  const files = [...(manifest.contributes.chatInstructions ?? []), ...(manifest.contributes.chatPromptFiles ?? [])];
  assert.equal(manifest.contributes.chatInstructions?.length, 1);
  assert.ok((manifest.contributes.chatPromptFiles ?? []).length >= 2);
  const ignore = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8');
  assert.match(ignore, /^!media\/\*\*$/m, '.vscodeignore must keep media/ in the package');
  for (const { path: rel } of files) {
    assert.match(rel, /^\.\/media\/chat\/[\w.-]+\.(instructions|prompt)\.md$/, rel);
    const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
    assert.match(text, /^---\n[\s\S]*?\ndescription: /, `${rel} starts with front matter that has a description`);
  }
  const when = (manifest.contributes.chatInstructions ?? [])[0]?.when ?? '';
  assert.match(when, /config\.contextLedger\.autoInject\.enabled/);
  assert.match(when, /isWorkspaceTrusted/);
});

test('every tool the contributed files name is one the extension registers (an agent told to call a missing tool fails)', () => {
  const manifest = packageManifest<Manifest>();
  const names = new Set(manifest.contributes.languageModelTools.map((t) => t.name));
  const references = new Set(manifest.contributes.languageModelTools.map((t) => t.toolReferenceName));
  const files = [...(manifest.contributes.chatInstructions ?? []), ...(manifest.contributes.chatPromptFiles ?? [])];
  let named = 0;
  for (const { path: rel } of files) {
    const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
    for (const [, tool] of text.matchAll(/`(contextLedger_\w+)`/g)) {
      named++;
      assert.ok(names.has(tool!), `${rel} names ${tool}, which the manifest does not declare`);
    }
    for (const [, ref] of text.matchAll(/\(#(\w+)\)/g)) assert.ok(references.has(ref), `${rel} references #${ref}, which no tool has`);
  }
  assert.ok(named >= 3, 'the instructions name the build, read and record tools');
});
