// Lint rules, including the import boundaries: contracts/ holds what the stack and the functions
// agree on and imports nothing of the project; the core is pure; nothing under lambdas/ reaches for
// the CDK; only adapters and handlers talk to AWS; adapters never import handlers or the settings;
// lambdas/shared never imports adapters or handlers; lib/ knows the functions by file path and by the
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
// Patterns start with **/ so that they hold at any depth (lambdas/core/rules/x.ts reaches adapters
// by ../../adapters/…).
const outward = {
  group: ['**/adapters/*', '**/handlers/*', '**/shared/*', '**/bin/*', '**/lib/*', '**/scripts/*'],
  message: 'lambdas/core imports nothing from outside itself but contracts/.',
};
// Inside the core, the first stages stand alone: common/ imports nothing of the core, and decode/ and
// parse/ only common/, the model and each other, so a record is read the same whatever rules exist.
const laterStages = {
  group: [
    '**/recognise/*',
    '**/incidents/*',
    '**/findings/*',
    '**/advice/*',
    '**/plans/*',
    '**/headroom/*',
    '**/analyze',
  ],
  message: 'decode/ and parse/ come first: they import only common/, model.ts and each other.',
};
const anyStage = {
  group: ['../*', '!../common/*'],
  message: 'lambdas/core/common holds leaves: it imports nothing of the core.',
};
const project = {
  group: ['../*'],
  message: 'contracts/ imports nothing of the project (only zod): lib/, lambdas/ and bin/ import it.',
};

const lambdasFromLib = {
  group: ['**/lambdas/*', '**/lambdas/**'],
  message: 'lib/ refers to the functions by file path only; what it shares with them lives in contracts/.',
};
// The leaves of lambdas/shared that adapters may use; the rest of shared (settings, invocation,
// observability) sits above the adapters and serves the handlers.
const sharedBelowAdapters = ['concurrency', 'aws-clients'];
const upward = {
  group: [
    '**/handlers/*',
    '**/shared/*',
    ...sharedBelowAdapters.map((name) => `!**/shared/${name}`),
    '**/bin/*',
    '**/lib/*',
    '**/scripts/*',
  ],
  message: 'Adapters import the core, each other and the leaves of lambdas/shared, never handlers or settings.',
};
const intoAdaptersOrHandlers = {
  group: ['**/adapters/*', '**/handlers/*', '**/bin/*', '**/lib/*', '**/scripts/*'],
  message:
    'lambdas/shared serves the handlers with what the layers below them agree on (settings, context, ' +
    'observability): it imports the core, contracts and its own leaves, never adapters or handlers.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'cdk.out/**', 'dist/**', '.bench/**', 'coverage/**', 'examples/**', 'docs/**'] },
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
  {
    files: ['lambdas/core/decode/**/*.ts', 'lambdas/core/parse/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [cdk, awsSdk, outward, laterStages] }] },
  },
  {
    files: ['lambdas/core/common/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [cdk, awsSdk, outward, anyStage] }] },
  },
  {
    files: ['lambdas/adapters/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [cdk, upward] }] },
  },
  {
    files: ['lambdas/shared/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [cdk, intoAdaptersOrHandlers] }] },
  },
  { files: ['lib/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [lambdasFromLib] }] } },
  {
    files: ['contracts/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [cdk, awsSdk, project] }] },
  },
);
