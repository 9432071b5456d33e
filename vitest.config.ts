import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    // End-to-end tests drive the real claude binary and real git repos; give them room.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // The machine has 2 cores; the e2e tests each spawn claude + git, so keep parallelism modest.
    maxWorkers: 2,
  },
});
