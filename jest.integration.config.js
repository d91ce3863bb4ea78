// The integration suite (`npm run test:integration`): the bundled functions of a real `cdk synth`
// against a local AWS emulator (moto server). Kept apart from `npm test`, which stays fast and
// needs nothing outside npm. See docs/integration-tests.md.
const unit = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...unit,
  roots: ['<rootDir>/test/integration'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/integration/global-setup.ts',
  globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
  // Each file starts its own emulator and runs cold starts of bundled functions on a shared 2-core machine.
  testTimeout: 120_000,
  maxWorkers: 2,
};
