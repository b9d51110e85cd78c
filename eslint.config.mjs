// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import { localRules } from './scripts/eslint-no-cycle.mjs';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'media/**/*.js', 'test/e2e/fixtures/**/*.js', '**/*.mjs', '**/*.cjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' }],
    },
  },
  {
    // No import cycles in src/ (scripts/eslint-no-cycle.mjs says why).
    files: ['src/**/*.ts'],
    plugins: { local: localRules },
    rules: { 'local/no-cycle': 'error' },
  },
  {
    // The core is pure: no editor API, no file system, no process. Adapters pass those in.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: ['vscode', 'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'child_process', 'node:child_process', 'process', 'node:process']
          .map((name) => ({ name, message: 'src/core must stay pure: pass file access, processes and the editor in through an interface.' })),
        patterns: [{ group: ['vscode/*', '../extension/*', '../cli/*', '../node/*'], message: 'src/core must not depend on adapters.' }],
      }],
      'no-restricted-globals': ['error', { name: 'process', message: 'src/core must not touch the process; pass what you need in.' }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
