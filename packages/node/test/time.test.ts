/**
 * `--since`/`--until` times (`internal/time.ts`): millisecond epochs and ISO-8601 with a zone; everything else refused
 * with the input named.
 */
import { assert, describe, it } from "@effect/vitest"
import { parseTime } from "../src/internal/time.ts"

const MAY_1 = 1_714_521_600_000 // 2024-05-01T00:00:00Z

describe("parseTime", () => {
  const accepted: ReadonlyArray<readonly [string, number]> = [
    ["0", 0],
    ["978307200000", 978_307_200_000],
    ["2001-01-01", 978_307_200_000],
    ["1714521600000", MAY_1],
    [" 1714521600123 ", MAY_1 + 123],
    ["2024-05-01", MAY_1],
    ["2024-02-29", MAY_1 - 62 * 86_400_000],
    ["2024-05-01T00:00:00Z", MAY_1],
    ["2024-05-01t00:00:00z", MAY_1],
    ["2024-05-01T00:00Z", MAY_1],
    ["2024-05-01 00:00:00Z", MAY_1],
    ["2024-05-01T00:00:00.250Z", MAY_1 + 250],
    ["2024-05-01T02:30:00+02:30", MAY_1],
    ["2024-05-01T02:30:00+0230", MAY_1],
    ["2024-04-30T19:00:00-05:00", MAY_1]
  ]
  for (const [input, millis] of accepted) {
    it(`${JSON.stringify(input)} is ${millis}`, () => {
      assert.deepStrictEqual(parseTime(input), { millis })
    })
  }

  const refused: ReadonlyArray<readonly [string, string]> = [
    ["2024-05-01T00:00:00", "has no time zone"],
    ["2024-05-01T00:00", "has no time zone"],
    ["2024-05-01 12:00:00.5", "has no time zone"],
    ["garbage", "neither a millisecond epoch nor an ISO-8601 date"],
    ["", "neither a millisecond epoch nor an ISO-8601 date"],
    ["-5", "neither a millisecond epoch nor an ISO-8601 date"],
    ["1e12", "neither a millisecond epoch nor an ISO-8601 date"],
    // Read as milliseconds these would be times in 1970, and an export would hold everything without a word.
    ["2024", "not a millisecond epoch since 2001"],
    ["20240501", "not a millisecond epoch since 2001"],
    ["1714521600", "not a millisecond epoch since 2001 (a year, a date without dashes, or seconds?)"],
    ["1", "not a millisecond epoch since 2001"],
    ["978307199999", "not a millisecond epoch since 2001"],
    // Dates before 2001 as well: no venue record is that old (a year mistyped; 1969 would be a negative epoch).
    ["0224-05-01", "is before 2001"],
    ["1969-12-31", "is before 2001"],
    ["0001-01-01T00:00:00Z", "is before 2001"],
    ["2000-12-31T23:59:59Z", "is before 2001"],
    ["2024/05/01", "neither a millisecond epoch nor an ISO-8601 date"],
    ["99999999999999999999", "too large"],
    ["2024-13-01", "not a valid date"],
    ["2024-05-01T25:00:00Z", "not a valid date"],
    // Days past the month's end, which the date parser would roll over into the next month.
    ["2024-02-30", "not a valid date"],
    ["2023-02-29", "not a valid date"],
    ["2024-04-31T00:00:00Z", "not a valid date"],
    ["2024-05-00", "not a valid date"]
  ]
  for (const [input, message] of refused) {
    it(`${JSON.stringify(input)} is refused: ${message}`, () => {
      const parsed = parseTime(input)
      assert.isTrue("error" in parsed, JSON.stringify(parsed))
      if ("error" in parsed) {
        assert.include(parsed.error, message)
        assert.isTrue(parsed.error.startsWith(input), parsed.error)
      }
    })
  }
})
