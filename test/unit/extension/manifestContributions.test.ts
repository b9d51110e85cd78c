import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generatedContributes } from '../../../src/extension/manifestContributions';
import { packageManifest } from '../helpers';

describe('the generated part of the manifest', () => {
  test('package.json holds what the build generates from the code (run `npm run build` and commit package.json)', () => {
    const contributes = packageManifest<{ contributes: Record<string, unknown> }>().contributes;
    for (const [key, value] of Object.entries(generatedContributes())) {
      assert.deepEqual(contributes[key], value, `contributes.${key} differs from the code`);
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
