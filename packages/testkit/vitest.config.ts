import { defineProject } from "vitest/config"

export default defineProject({
  resolve: { conditions: ["@spotkit/source"] },
  ssr: { resolve: { conditions: ["@spotkit/source"] } },
  test: {
    name: "testkit",
    include: ["test/**/*.test.ts"]
  }
})
