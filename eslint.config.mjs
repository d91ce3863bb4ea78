// Lint rules, including the import boundaries: contracts/ holds what the stack and the functions
// agree on and imports nothing of the project; the core is pure; nothing under lambdas/ reaches for
// the CDK; only adapters and handlers talk to AWS; lib/ knows the functions by file path and by the
// contracts only (docs/architecture.md, Layers and import rules).
import tseslint from 'typescript-eslint';

const cdk = {
  group: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs', 'cdk-nag'],
  message: 'lambdas/ and contracts/ never import the CDK.',
};
const awsSdk = {
  group: ['@aws-sdk/*', '@aws-lambda-powertools/*'],
  message: 'lambdas/core and contracts/ are pure: no AWS SDK, no Powertools.',
};
const outward = {
  group: ['../adapters/*', '../handlers/*', '../shared/*', '../../bin/*', '../../lib/*'],
  message: 'lambdas/core imports nothing from outside itself but contracts/.',
};
const project = {
  group: ['../*'],
  message: 'contracts/ imports nothing of the project (only zod): lib/, lambdas/ and bin/ import it.',
};

const lambdasFromLib = {
  group: ['**/lambdas/*', '**/lambdas/**'],
  message: 'lib/ refers to the functions by file path only; what it shares with them lives in contracts/.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'dist/**', 'coverage/**', 'examples/**', 'docs/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  { files: ['**/*.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['lambdas/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [cdk] }] } },
  {
    files: ['lambdas/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [cdk, awsSdk, outward] }] },
  },
  { files: ['lib/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [lambdasFromLib] }] } },
  {
    files: ['contracts/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [cdk, awsSdk, project] }] },
  },
);
