/**
 * Three projects: `unit` needs nothing but Node; `integration` talks to a real OpenSearch node (and later
 * DynamoDB Local) started once by test/setup/global-setup.ts; `browser` drives the system's Chromium
 * against `npm start`'s server. `npm test` runs all three.
 * TypeScript is transpiled by ts-jest (type checking runs once, in `npm test`, through tsc).
 * middy, jose and commander 15 ship ESM only, so they are transpiled too (transformIgnorePatterns).
 */
const common = {
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/setup/env.ts'],
  transform: {
    '^.+\\.[tj]s$': ['ts-jest', { tsconfig: 'tsconfig.jest.json' }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|jose|commander)/)'],
  moduleNameMapper: {
    '^#shared/(.*)$': '<rootDir>/shared/$1',
    '^#commons/(.*)$': '<rootDir>/functions/commons/$1',
  },
};

module.exports = {
  // Real engines on a 2-core machine: generous per-test time (a global option in jest, not per
  // project); speed is measured in bench/, never asserted here.
  testTimeout: 120_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    },
    // A real headless Chromium (the system's) against `npm start`'s server; skipped where there is none.
    { ...common, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
  ],
};
