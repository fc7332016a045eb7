// Times given on the command line: a millisecond epoch (0, or since 2001), or an ISO-8601 date (UTC) or date-time with a zone.
import { DateTime, Option } from "effect"

const DIGITS = /^\d+$/
// 2001-01-01T00:00:00Z: a bare number below it (but 0) is not taken as a millisecond epoch, nor a date before it
// taken (a year mistyped, 0224-05-01): no venue record is that old.
const EARLIEST = 978_307_200_000
// A date, or a date-time that says its zone: a local time would mean something else on every machine.
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i
const ISO_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/

// The date parser rolls a day past the month's end over into the next month (2024-02-30 is 2024-03-01): refuse it.
const isCalendarDate = (text: string): boolean => {
  const [year, month, day] = text.slice(0, 10).split("-").map(Number) as [number, number, number]
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
  return month >= 1 && month <= 12 && day >= 1 && day <= days
}

/** Milliseconds since the epoch, or why the text is not a time. */
export const parseTime = (text: string): { readonly millis: number } | { readonly error: string } => {
  const trimmed = text.trim()
  if (DIGITS.test(trimmed)) {
    const millis = Number(trimmed)
    if (!Number.isSafeInteger(millis)) return { error: `${text} is too large for a millisecond epoch` }
    // A year (2024), a date without its dashes (20240501) or an epoch in seconds would be a time in 1970 as
    // milliseconds, and an export would then hold everything (or nothing) without a word. No venue record is that
    // old: 0 alone (every record) stays.
    if (millis !== 0 && millis < EARLIEST) {
      return {
        error: `${text} is not a millisecond epoch since 2001 (a year, a date without dashes, or seconds?): give ` +
          "milliseconds such as 1714521600000 (0 for every record) or an ISO-8601 date such as 2024-05-01 or " +
          "2024-05-01T12:00:00Z"
      }
    }
    return { millis }
  }
  if (!ISO.test(trimmed)) {
    return {
      error: ISO_WITHOUT_ZONE.test(trimmed)
        ? `${text} has no time zone: add Z (UTC) or an offset such as +02:00`
        : `${text} is neither a millisecond epoch nor an ISO-8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z`
    }
  }
  if (!isCalendarDate(trimmed)) return { error: `${text} is not a valid date` }
  return Option.match(DateTime.make(trimmed), {
    onNone: () => ({ error: `${text} is not a valid date` }),
    onSome: (date) => {
      const millis = DateTime.toEpochMillis(date)
      return millis < EARLIEST
        ? { error: `${text} is before 2001: no venue record is that old (a mistyped year?); 0 means every record` }
        : { millis }
    }
  })
}
