import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: files run in parallel forks; each test owns its temp folder and SQLite file.
    pool: 'forks',
    reporters: ['default'],
  },
});
