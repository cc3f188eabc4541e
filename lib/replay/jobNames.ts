/**
 * The Jobs an action names, short enough for one line of `lineup history`: a few listed by name,
 * many of one replicatedJob as a range of indices. lib/sim/format.ts groups a simulation's
 * timeline entries alike, but one line there holds a single replicatedJob and lists no name below
 * a range; an action of a pass often names Jobs of several replicatedJobs (a startup's creates),
 * and two or three are best read by name.
 */

/** At most this many names of one replicatedJob are listed one by one; more become a range. */
const LISTED_PER_PREFIX = 3;

/** At most this many groups are printed; the rest are counted. */
const MAX_GROUPS = 6;

/** indexRanges: sorted distinct indices as `0..3,5,7..9`. */
const indexRanges = (indices: readonly number[]): string => {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] ?? 0) + 1) j += 1;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}..${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
};

/** shortJobName: a Job's name without its JobSet's name in front (`driver-0` for `js-driver-0`). */
export const shortJobName = (name: string, jobSetName: string): string =>
  jobSetName !== '' && name.startsWith(`${jobSetName}-`) && name.length > jobSetName.length + 1 ? name.slice(jobSetName.length + 1) : name;

/**
 * jobNamesText: `driver-0, driver-1`, or `worker-0..7 (8 jobs)`, or both side by side, in the order
 * the names first appear, each shortened by `jobSetName`. Names not ending in an index are listed.
 */
export const jobNamesText = (names: readonly string[], jobSetName: string): string => {
  // Grouped by what precedes the index, so each replicatedJob reads as one run.
  const groups = new Map<string, { names: string[]; indices: number[] }>();
  for (const name of names.map((full) => shortJobName(full, jobSetName))) {
    const match = /^(.*)-(\d+)$/.exec(name);
    const prefix = match?.[1] ?? name;
    const group = groups.get(prefix) ?? { names: [], indices: [] };
    group.names.push(name);
    if (match) group.indices.push(Number(match[2]));
    groups.set(prefix, group);
  }
  const parts = [...groups.entries()].map(([prefix, group]) =>
    group.names.length <= LISTED_PER_PREFIX || group.indices.length !== group.names.length
      ? group.names.slice(0, LISTED_PER_PREFIX).join(', ') + (group.names.length > LISTED_PER_PREFIX ? ` +${group.names.length - LISTED_PER_PREFIX} more` : '')
      : `${prefix}-${indexRanges(group.indices)} (${group.names.length} jobs)`,
  );
  if (parts.length <= MAX_GROUPS) return parts.join(', ');
  const hidden = [...groups.values()].slice(MAX_GROUPS).reduce((sum, group) => sum + group.names.length, 0);
  return `${parts.slice(0, MAX_GROUPS).join(', ')} +${hidden} more jobs`;
};
