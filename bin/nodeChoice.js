// Which Node runs the `lineup` CLI: plain JavaScript that any Node since 14 can load, so that
// an old Node reaches the launcher's message rather than a syntax error.

/** REQUIRED_MAJOR: Lineup runs on Node 24, the Lambda runtime's major. */
export const REQUIRED_MAJOR = 24;

/** PINNED_PLATFORMS: the platforms for which package.json pins a Node 24 binary (node-<platform>). */
export const PINNED_PLATFORMS = ['linux-x64', 'linux-arm64'];

/**
 * chooseNode: how to run Lineup given the running Node's version, the platform
 * (`${process.platform}-${process.arch}`) and a lookup of the pinned binary (a path, or
 * undefined when that package is not installed). Returns `{ run: 'here' }` when this Node will
 * do, `{ run: 'pinned', binary }` to re-run on the pinned Node, or `{ error }`, a one-line
 * message that says which Node is needed.
 */
export const chooseNode = (version, platform, findPinned) => {
  const major = Number(version.split('.')[0]);
  if (major >= REQUIRED_MAJOR) return { run: 'here' };
  const pinned = PINNED_PLATFORMS.includes(platform);
  const binary = pinned ? findPinned(`node-${platform}`) : undefined;
  if (binary !== undefined) return { run: 'pinned', binary };
  const why = pinned
    ? `the pinned node-${platform} package is not installed (run npm install without --omit=optional)`
    : `no Node ${REQUIRED_MAJOR} binary is pinned for ${platform} (only for ${PINNED_PLATFORMS.join(', ')})`;
  return {
    error: `lineup: needs Node ${REQUIRED_MAJOR} or later, found ${version} on ${platform}, and ${why}; install Node ${REQUIRED_MAJOR} (https://nodejs.org) and run lineup with it`,
  };
};
