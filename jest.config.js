/** Tests run as native ESM (agenda 6 is ESM-only) through ts-jest; types are checked by `tsc --noEmit` in scripts/test.sh. */
export default {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // The tools' `#kairos/*` imports are the product's sources here, as in `tsc --noEmit` (package.json "imports").
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1', '^#kairos/(.*)\\.js$': '<rootDir>/src/$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  globalSetup: '<rootDir>/tests/support/globalSetup.ts',
  setupFilesAfterEnv: ['<rootDir>/tests/support/leakCheck.ts'],
  testTimeout: 30000,
};
