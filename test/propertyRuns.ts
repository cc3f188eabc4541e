/**
 * How many cases each fast-check property runs: PROPERTY_RUNS in the unit tier, or what
 * `npm run test:properties -- --runs N` asks for (test/runProperties.ts passes it on in the
 * environment), plus the seed and path fast-check prints with a failure, to replay it.
 */
import { InvalidInputError } from '../lib/errors.ts';

/** PROPERTY_RUNS: cases per property when nothing else is asked for (CI runs at least this many). */
export const PROPERTY_RUNS = 300;

/** PropertyEnv: the environment variables test/runProperties.ts sets from its flags. */
export const PropertyEnv = {
  runs: 'LINEUP_PROPERTY_RUNS',
  seed: 'LINEUP_PROPERTY_SEED',
  path: 'LINEUP_PROPERTY_PATH',
} as const;

/** The fast-check parameters every property of the tier passes to fc.assert. */
export interface PropertyParameters {
  readonly numRuns: number;
  readonly seed?: number;
  readonly path?: string;
}

/** parseRuns: a positive whole number of runs, or an error saying what was given. */
export const parseRuns = (text: string): number => {
  const runs = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(runs) || runs < 1) {
    throw new InvalidInputError(`runs must be a positive whole number, got ${JSON.stringify(text)}`);
  }
  return runs;
};

/** parseSeed: a 32-bit integer seed as fast-check prints it, or an error saying what was given. */
export const parseSeed = (text: string): number => {
  const seed = Number(text);
  if (!/^-?\d+$/.test(text) || seed < -(2 ** 31) || seed >= 2 ** 32) {
    throw new InvalidInputError(`seed must be a 32-bit integer, got ${JSON.stringify(text)}`);
  }
  return seed;
};

/**
 * propertyParameters: numRuns from LINEUP_PROPERTY_RUNS (PROPERTY_RUNS when unset), and the
 * seed and path to replay when set.
 */
export const propertyParameters = (env: NodeJS.ProcessEnv = process.env): PropertyParameters => {
  const runs = env[PropertyEnv.runs];
  const seed = env[PropertyEnv.seed];
  const path = env[PropertyEnv.path];
  return {
    numRuns: runs === undefined || runs === '' ? PROPERTY_RUNS : parseRuns(runs),
    ...(seed === undefined || seed === '' ? {} : { seed: parseSeed(seed) }),
    ...(path === undefined || path === '' ? {} : { path }),
  };
};
