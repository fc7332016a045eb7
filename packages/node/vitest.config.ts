import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@spotkit/source"] },
  ssr: { resolve: { conditions: ["@spotkit/source"] } },
  test: {
    name: "node",
    include: ["test/**/*.test.ts"],
    // Builds dist/ (tsc -b) so that the end-to-end tests run the built CLI.
    globalSetup: ["test/globalSetup.ts"],
    // The end-to-end tests start the CLI as subprocesses.
    testTimeout: 60_000
  }
})
