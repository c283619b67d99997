// Lint: type-aware rules that catch the bugs a workflow engine cannot afford
// (floating promises, misused promises), on top of the recommended sets.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import cairn from '@cairn/eslint-plugin'

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '**/dist/**',
      '**/*.js',
      '!eslint.config.js',
      '!packages/dashboard/console/**/*.js',
      // Plain JavaScript with JSDoc types, in the TypeScript program: linted with types.
      '!packages/eslint-plugin/src/**/*.js',
      '**/.adonisjs/**',
      // Projects of their own (a user's app), compiled and run inside the packaging test.
      'tests/packaging/fixtures/**',
      // Scratch space (gitignored): probes and review scripts, never part of the project.
      '.tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['eslint.config.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  // The example shop's workflows, held to what we ask of users' (docs/lint.md): through the
  // workspace package, which is plain JavaScript, so ESLint loads it without a build.
  {
    files: ['examples/shop/app/workflows/**/*.ts'],
    ...cairn.configs.recommended,
  },
  // The dashboard console: plain browser ES modules (no build step), linted with the
  // recommended JavaScript rules only. Browser globals are listed here rather than pulled
  // from a `globals` package: the console uses few, and a new one should be a conscious edit.
  {
    files: ['packages/dashboard/console/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'navigator',
          'localStorage',
          'performance',
          'console',
          'fetch',
          'URL',
          'URLSearchParams',
          'AbortController',
          'EventSource',
          'CustomEvent',
          'HashChangeEvent',
          'Node',
          'HTMLElement',
          'setTimeout',
          'clearTimeout',
          'requestAnimationFrame',
          'cancelAnimationFrame',
          'queueMicrotask',
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      ...js.configs.recommended.rules,
    },
  },
)
