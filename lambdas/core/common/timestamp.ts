/**
 * Record times as numbers (epoch milliseconds) from the parser on: read once per record, compared as
 * numbers, rendered as ISO-8601 only where a finding shows one (its first and last seen, its
 * evidence). `Date.parse` on every record and a `toISOString` to turn an epoch `ts` into a string
 * that was parsed again cost more than the aggregation around them (npm run bench, filtered stream).
 */

/**
 * The epoch milliseconds of a record's time field: a number is epoch seconds (zap's `ts`) or, from
 * 1e11 on, milliseconds; a string is read as `Date.parse` reads it. Undefined for anything else,
 * for a time no Date can hold, and for a string longer than 40 characters (no timestamp is).
 */
export function epochMsOf(value: unknown): number | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    const ms = value < 1e11 ? value * 1000 : value;
    // What `new Date(ms)` keeps (TimeClip): whole milliseconds, within ±8.64e15; `+ 0` turns -0 into 0.
    return Math.abs(ms) <= MAX_TIME ? Math.trunc(ms) + 0 : undefined;
  }
  if (typeof value === 'string' && value.length <= 40) return parseTimestamp(value);
  return undefined;
}

const MAX_TIME = 8.64e15;

/**
 * `Date.parse(text)`, undefined where that is NaN. The form every emitter here writes
 * (`2024-08-21T12:03:10.958Z`, RFC 3339 with `Z` or an offset, up to nine digits of fraction) is
 * read digit by digit; anything else, or a field out of its range (which Date.parse reads in ways of
 * its own: February 30th is March 1st), goes to Date.parse itself. A property test compares both.
 */
export function parseTimestamp(text: string): number | undefined {
  const fast = rfc3339Ms(text);
  if (fast !== undefined) return fast;
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** Epoch ms of `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|±HH:MM)` with every field in range, else undefined. */
function rfc3339Ms(text: string): number | undefined {
  const length = text.length;
  if (length < 20 || length > 35) return undefined;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58
  ) {
    return undefined;
  }
  const century = twoDigits(text, 0);
  const yearOfCentury = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  if (century < 0 || yearOfCentury < 0) return undefined;
  const year = century * 100 + yearOfCentury;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined;
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46) {
    // A fraction: its first three digits are the milliseconds, the rest is cut (as Date.parse does).
    const start = ++at;
    while (at < length && isDigit(text.charCodeAt(at))) at++;
    const count = at - start;
    if (count < 1 || count > 9) return undefined;
    ms = (text.charCodeAt(start) - 48) * 100;
    if (count > 1) ms += (text.charCodeAt(start + 1) - 48) * 10;
    if (count > 2) ms += text.charCodeAt(start + 2) - 48;
  }
  let offset = 0;
  const zone = text.charCodeAt(at);
  if (zone === 90 && at + 1 === length) {
    offset = 0; // Z
  } else if ((zone === 43 || zone === 45) && at + 6 === length && text.charCodeAt(at + 3) === 58) {
    const offsetHours = twoDigits(text, at + 1);
    const offsetMinutes = twoDigits(text, at + 4);
    if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) return undefined;
    offset = (zone === 43 ? 1 : -1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  } else {
    return undefined;
  }
  return daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + ms - offset;
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57;

/** The number the two decimal digits at `start` spell, or -1 when one is not a digit. */
function twoDigits(text: string, start: number): number {
  const tens = text.charCodeAt(start) - 48;
  const units = text.charCodeAt(start + 1) - 48;
  // Unsigned, a code below '0' is as large as one above '9'.
  return tens >>> 0 > 9 || units >>> 0 > 9 ? -1 : tens * 10 + units;
}

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (year: number, month: number): number => (month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!);

/** Days from 1970-01-01 to a date of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the times written with four digits of year. */
const FIRST_FOUR_DIGIT_MS = -62_167_219_200_000;
const LAST_FOUR_DIGIT_MS = 253_402_300_799_999;

/**
 * ISO-8601 of epoch milliseconds, for what a finding shows: what `new Date(ms).toISOString()` gives.
 * Whole milliseconds of years 0 to 9999 (every time a log carries) are written digit by digit, a
 * date from H. Hinnant's civil_from_days, one string built at once; anything else (six-digit years,
 * fractions, NaN, which throws) goes to Date itself. Date's own rendering cost five times as much
 * and was a twentieth of aggregating a delivery (npm run bench); a property test compares both.
 */
export function isoOf(ms: number): string {
  if (!Number.isInteger(ms) || ms < FIRST_FOUR_DIGIT_MS || ms > LAST_FOUR_DIGIT_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86_400_000);
  let rest = ms - days * 86_400_000;
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  // civil_from_days: the day's era of 400 years, its year of the era and day of a March-based year.
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return String.fromCharCode(
    48 + Math.floor(year / 1000),
    48 + (Math.floor(year / 100) % 10),
    48 + (Math.floor(year / 10) % 10),
    48 + (year % 10),
    45, // -
    48 + Math.floor(month / 10),
    48 + (month % 10),
    45,
    48 + Math.floor(day / 10),
    48 + (day % 10),
    84, // T
    48 + Math.floor(hour / 10),
    48 + (hour % 10),
    58, // :
    48 + Math.floor(minute / 10),
    48 + (minute % 10),
    58,
    48 + Math.floor(second / 10),
    48 + (second % 10),
    46, // .
    48 + Math.floor(milli / 100),
    48 + (Math.floor(milli / 10) % 10),
    48 + (milli % 10),
    90, // Z
  );
}
