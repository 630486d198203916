import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'adapters/web/public/vendor/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // The CLI entry, scripts, tests and the browser page may write to the console.
    files: ['bin/**', 'scripts/**', 'test/**', 'adapters/web/public/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['adapters/web/public/**/*.js'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        fetch: 'readonly',
        EventSource: 'readonly',
        FormData: 'readonly',
        URL: 'readonly',
        location: 'readonly',
        localStorage: 'readonly',
      },
    },
  },
);
