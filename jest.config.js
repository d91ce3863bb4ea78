/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The integration suite needs moto server; it runs with `npm run test:integration`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/integration/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: false }],
  },
  setupFiles: ['<rootDir>/test/setup-env.ts'],
  // A hang guard, not a speed check: on a shared 2-core machine a handler test that drives hundreds of
  // simulated runs can take longer than jest's 5 s default without anything being wrong.
  testTimeout: 30_000,
  // Builds dist/ (npm run build) once, for the tests that run the bin as users do.
  globalSetup: '<rootDir>/test/global-setup.ts',
  // Removes the cdk.out folders that test apps write to the temp directory.
  setupFilesAfterEnv: ['aws-cdk-lib/testhelpers/jest-autoclean'],
};
