import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@spotkit/source"] },
  ssr: { resolve: { conditions: ["@spotkit/source"] } },
  test: {
    name: "node",
    include: ["test/**/*.test.ts"],
    // The end-to-end tests start the CLI and the sandbox as subprocesses.
    testTimeout: 60_000
  }
})
