import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@spotkit/source"] },
  ssr: { resolve: { conditions: ["@spotkit/source"] } },
  test: {
    name: "examples",
    include: ["*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000
  }
})
