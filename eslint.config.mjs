// Lint rules, including the import boundaries of docs/architecture.md (Layers and import rules): the core is
// pure, nothing under lambdas/ reaches for the CDK, and only adapters and handlers talk to AWS.
import tseslint from 'typescript-eslint';

const cdk = {
  group: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs', 'cdk-nag'],
  message: 'lambdas/ never imports the CDK (docs/architecture.md).',
};
const awsSdk = {
  group: ['@aws-sdk/*', '@aws-lambda-powertools/*'],
  message: 'lambdas/core is pure: no AWS SDK, no Powertools (docs/architecture.md).',
};
const outward = {
  group: ['../adapters/*', '../handlers/*', '../shared/*', '../../bin/*', '../../lib/*'],
  message: 'lambdas/core imports nothing from outside itself (docs/architecture.md).',
};

const handlersByPath = {
  group: ['**/lambdas/core/*', '**/lambdas/adapters/*', '**/lambdas/handlers/*'],
  message: 'lib/ refers to handlers by file path only; shared names live in lambdas/shared (docs/architecture.md).',
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

  { files: ['lib/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [handlersByPath] }] } },
);
