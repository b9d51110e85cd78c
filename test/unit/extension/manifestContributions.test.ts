import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generatedContributes } from '../../../src/extension/manifestContributions';
import { COMMAND_TABLE_IDS, FEATURE_COMMAND_IDS, INTERNAL_COMMAND_IDS } from '../../../src/extension/commands/tableIds';
import { packageManifest } from '../helpers';

describe('the generated part of the manifest', () => {
  test('package.json holds what the build generates from the code (run `npm run build` and commit package.json)', () => {
    const contributes = packageManifest<{ contributes: Record<string, unknown> }>().contributes;
    for (const [key, value] of Object.entries(generatedContributes())) {
      assert.deepEqual(contributes[key], value, `contributes.${key} differs from the code`);
    }
  });

  test('each generated command has a registration, and each registered command but the internal ones is generated', () => {
    const registered = [...Object.values(COMMAND_TABLE_IDS), ...Object.values(FEATURE_COMMAND_IDS)].flat() as string[];
    const generated = generatedContributes().commands.map((c) => c.command as string);
    for (const id of generated) assert.ok(registered.includes(id), `${id} is in the manifest, yet nothing registers it`);
    const expected = registered.filter((id) => !INTERNAL_COMMAND_IDS.includes(id));
    assert.deepEqual([...generated].sort(), [...expected].sort());
    // The menus name only generated commands: a menu entry for a command nobody registers would be dead.
    for (const [menu, entries] of Object.entries(generatedContributes().menus)) {
      for (const e of entries) assert.ok(generated.includes(e.command), `${menu}: ${e.command}`);
    }
  });

  test('each language-model tool declares the input schema of the zod schema it validates with', () => {
    const { languageModelTools } = generatedContributes();
    assert.equal(languageModelTools.length, 6);
    const create = languageModelTools.find((t) => t.name === 'contextLedger_createArtifact')!;
    const schema = create.inputSchema as { type: string; required: string[]; properties: Record<string, unknown> };
    assert.equal(schema.type, 'object');
    assert.deepEqual(schema.required, ['type', 'title', 'body']);
  });
});
