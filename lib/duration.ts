/**
 * Durations as people write them in behaviour files and CLI flags (`500ms`, `1.5s`, `1h30m`,
 * `0`, `never`), in the spirit of Go's time.ParseDuration but limited to the units a
 * JobSet run needs, and with `never` meaning Infinity. Below the CLI, the simulator and the
 * renderers, which all read or print durations.
 */
import { InvalidInputError } from './errors.ts';

/** NEVER: the word that means "this never happens" (parsed to Infinity). */
export const NEVER = 'never';

/** Milliseconds per unit, largest first so formatDuration can walk it. */
const unitMs = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
type Unit = keyof typeof unitMs;

const UNITS_LIST = Object.keys(unitMs).join(', ');

// One `<number><unit>` term; `ms` must be tried before `m` so `500ms` is not read as 500m + "s".
const termPattern = /(\d+(?:\.\d+)?|\.\d+)(ms|h|m|s)/y;

/**
 * parseDuration: milliseconds for a duration string (`500ms`, `1s`, `2m`, `1h30m`, `1.5s`,
 * `0`, `never` → Infinity). A number is accepted only when it is 0, because a bare number has
 * no unit to read it in. Throws InvalidInputError saying what was wrong and what is expected.
 *
 * @example parseDuration('1h30m') // 5_400_000
 */
export const parseDuration = (value: string | number): number => {
  if (typeof value === 'number') {
    if (value === 0) return 0;
    throw new InvalidInputError(`duration ${value} has no unit: expected a number with one of ${UNITS_LIST} (e.g. 5s), 0 or ${NEVER}`);
  }
  const text = value.trim();
  if (text === NEVER) return Infinity;
  if (text === '0') return 0;
  if (text === '') throw new InvalidInputError(`duration is empty: expected e.g. 500ms, 5s, 1h30m, 0 or ${NEVER}`);
  let total = 0;
  let offset = 0;
  while (offset < text.length) {
    termPattern.lastIndex = offset;
    const match = termPattern.exec(text);
    if (!match) {
      throw new InvalidInputError(
        `duration ${JSON.stringify(value)} is not valid: expected terms like 500ms, 5s, 2m, 1h30m (units ${UNITS_LIST}), 0 or ${NEVER}`,
      );
    }
    total += Number(match[1]) * unitMs[match[2] as Unit];
    offset = termPattern.lastIndex;
  }
  // Virtual time counts whole milliseconds; a finer value would be silently rounded otherwise.
  const rounded = Math.round(total);
  if (Math.abs(rounded - total) > 1e-6) {
    throw new InvalidInputError(`duration ${JSON.stringify(value)} is finer than a millisecond: expected whole milliseconds`);
  }
  return rounded;
};

/**
 * parseDurationFlag: parseDuration for a command-line flag. A refusal names the flag first
 * (`--until: duration "soon" is not valid: …`): the commands take several durations, and the
 * user must see which one was refused.
 * @example parseDurationFlag('--speed', 'fast') // throws InvalidInputError('--speed: duration "fast" is not valid: …')
 */
export const parseDurationFlag = (flag: string, value: string): number => {
  try {
    return parseDuration(value);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(`${flag}: ${error.message}`, { cause: error });
  }
};

/**
 * formatDuration: a short human form of milliseconds, the inverse of parseDuration for whole
 * milliseconds (`1500` → `1.5s`, `5_400_000` → `1h30m`, `0` → `0s`, Infinity → `never`).
 */
export const formatDuration = (ms: number): string => {
  if (ms === Infinity) return NEVER;
  if (!Number.isFinite(ms)) return String(ms);
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.round(Math.abs(ms));
  if (rest < 1000) return `${sign}${rest}ms`;
  let out = '';
  for (const unit of ['h', 'm'] as const) {
    const whole = Math.floor(rest / unitMs[unit]);
    if (whole > 0) out += `${whole}${unit}`;
    rest -= whole * unitMs[unit];
  }
  if (rest > 0) out += `${rest / 1000}s`;
  return `${sign}${out}`;
};
