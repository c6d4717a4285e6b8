/** Unit tests need nothing; integration tests share one Temporal dev server and one fresh database per run. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type checking runs once in `npm test` (tsc --noEmit); per-file transpilation keeps jest fast.
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // `feed` (the archive's Atom feed) ships ES modules only; Node requires them natively, jest's runtime does not.
    '/node_modules/feed/.+\\.js$': ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!feed/)'],
  globalSetup: '<rootDir>/test/helpers/globalSetup.ts',
  globalTeardown: '<rootDir>/test/helpers/globalTeardown.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/helpers/summaryReporter.js'],
};
