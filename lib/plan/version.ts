/**
 * The planner's version, recorded in every journal entry so a replay knows which planner decided.
 * Written by `node scripts/plannerVersion.ts` (run it after changing lib/plan, lib/policy,
 * lib/jobset or lib/constants.ts); test/plan/version.test.ts fails while it is stale.
 */

/** PACKAGE_VERSION: package.json's version when the digest was computed. */
export const PACKAGE_VERSION = '0.1.0';

/** PLANNER_SOURCE_DIGEST: sha256 (first 12 hex) of the planner's sources. */
export const PLANNER_SOURCE_DIGEST = '51d5805aeca9';

/** PLANNER_VERSION: what a journal entry records, e.g. "0.1.0+0123456789ab". */
export const PLANNER_VERSION = `${PACKAGE_VERSION}+${PLANNER_SOURCE_DIGEST}`;
