import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { FieldError } from '../../lib/errors.ts';
import { loadedJobSets, loadJobSets } from '../../lib/jobset/load.ts';
import { parseStartupRules, startupRulesOf } from '../../lib/jobset/startupRules.ts';
import type { StartupRule } from '../../lib/policy/types.ts';
import { makeJobSet } from '../builders.ts';
import { examplePath } from '../repoFiles.ts';

// Expected paths and messages are literal strings: read back from lib they would pass however wrong.
const STARTUP_RULES_PATH = 'metadata.annotations[lineup.dev/startup-rules]';
const at = (suffix: string): string => `${STARTUP_RULES_PATH}${suffix}`;

describe('jobset/startupRules', () => {
  describe('parseStartupRules accepts', () => {
    const cases: { name: string; text: string; want: StartupRule[]; wantPaths: string[][] }[] = [
      {
        name: 'the long form, in order, with Succeeded meaning Complete',
        text: '- targetReplicatedJobs: [dataset]\n  status: Succeeded\n- targetReplicatedJobs: [driver, sidecar]\n  status: Ready\n',
        want: [
          { targetReplicatedJobs: ['dataset'], status: 'Complete' },
          { targetReplicatedJobs: ['driver', 'sidecar'], status: 'Ready' },
        ],
        wantPaths: [[at('[0].targetReplicatedJobs[0]')], [at('[1].targetReplicatedJobs[0]'), at('[1].targetReplicatedJobs[1]')]],
      },
      {
        name: 'the shorthand {name, status}',
        text: '- {name: driver, status: Ready}\n',
        want: [{ targetReplicatedJobs: ['driver'], status: 'Ready' }],
        wantPaths: [[at('[0].name')]],
      },
      {
        name: 'Complete as a synonym of Succeeded',
        text: '- {name: dataset, status: Complete}\n- {name: model, status: Succeeded}\n',
        want: [
          { targetReplicatedJobs: ['dataset'], status: 'Complete' },
          { targetReplicatedJobs: ['model'], status: 'Complete' },
        ],
        wantPaths: [[at('[0].name')], [at('[1].name')]],
      },
      {
        name: 'JSON, mixing both forms',
        text: '[{"targetReplicatedJobs":["a","b"],"status":"Succeeded"},{"name":"c","status":"Ready"}]',
        want: [
          { targetReplicatedJobs: ['a', 'b'], status: 'Complete' },
          { targetReplicatedJobs: ['c'], status: 'Ready' },
        ],
        wantPaths: [[at('[0].targetReplicatedJobs[0]'), at('[0].targetReplicatedJobs[1]')], [at('[1].name')]],
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.deepEqual(parseStartupRules(tc.text), { ok: true, rules: tc.want, targetPaths: tc.wantPaths });
      });
    }
  });

  describe('parseStartupRules rejects', () => {
    const cases: { name: string; text: string; want: FieldError[] }[] = [
      {
        name: 'a string instead of a list',
        text: 'driver then workers',
        want: [{ path: STARTUP_RULES_PATH, message: 'expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got the string "driver then workers"' }],
      },
      {
        name: 'a mapping instead of a list',
        text: '{name: driver, status: Ready}',
        want: [{ path: STARTUP_RULES_PATH, message: 'expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got a mapping' }],
      },
      { name: 'an empty value', text: '', want: [{ path: STARTUP_RULES_PATH, message: 'expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got null' }] },
      { name: 'an empty list', text: '[]', want: [{ path: STARTUP_RULES_PATH, message: 'expected at least one rule, got an empty list' }] },
      { name: 'an item that is not a mapping', text: '- driver', want: [{ path: at('[0]'), message: 'expected a rule ({targetReplicatedJobs: [names], status} or {name, status}), got the string "driver"' }] },
      {
        name: 'an item with neither targetReplicatedJobs nor name',
        text: '- {name: a, status: Ready}\n- {status: Ready}',
        want: [{ path: at('[1]'), message: 'a rule names no replicatedJob: expected targetReplicatedJobs (a list of names) or name (one name), got neither' }],
      },
      {
        name: 'an item with both targetReplicatedJobs and name',
        text: '- {name: a, targetReplicatedJobs: [b], status: Ready}',
        want: [{ path: at('[0]'), message: 'a rule has both targetReplicatedJobs and name, expected only one of them' }],
      },
      {
        name: 'an empty targetReplicatedJobs',
        text: '- {targetReplicatedJobs: [], status: Ready}',
        want: [{ path: at('[0].targetReplicatedJobs'), message: 'targetReplicatedJobs must name at least one replicatedJob, got an empty list' }],
      },
      {
        name: 'targetReplicatedJobs that is not a list',
        text: '- {targetReplicatedJobs: driver, status: Ready}',
        want: [{ path: at('[0].targetReplicatedJobs'), message: 'targetReplicatedJobs must be a list of replicatedJob names, got the string "driver"' }],
      },
      {
        name: 'a target that is not a non-empty string',
        text: '- {targetReplicatedJobs: [a, 3, ""], status: Ready}',
        want: [
          { path: at('[0].targetReplicatedJobs[1]'), message: 'expected a replicatedJob name (a non-empty string), got number 3' },
          { path: at('[0].targetReplicatedJobs[2]'), message: 'expected a replicatedJob name (a non-empty string), got the string ""' },
        ],
      },
      {
        name: 'a status other than Ready, Succeeded or Complete',
        text: '- {name: a, status: Ready}\n- {name: b, status: Running}',
        want: [{ path: at('[1].status'), message: 'status is "Running", expected one of: Ready, Succeeded, Complete' }],
      },
      {
        name: 'a status in the wrong case',
        text: '- {name: a, status: ready}',
        want: [{ path: at('[0].status'), message: 'status is "ready", expected one of: Ready, Succeeded, Complete' }],
      },
      { name: 'a missing status', text: '- {name: a}', want: [{ path: at('[0].status'), message: 'status is missing, expected one of: Ready, Succeeded, Complete' }] },
      {
        name: 'an unknown key (a typo of targetReplicatedJobs)',
        text: '- {targetReplicatedJob: [a], name: a, status: Ready}',
        want: [{ path: at('[0]'), message: 'unknown key "targetReplicatedJob" in a rule, expected targetReplicatedJobs or name, and status' }],
      },
      {
        name: 'every bad item, not only the first',
        text: '- {name: a, status: Bad}\n- 7\n',
        want: [
          { path: at('[0].status'), message: 'status is "Bad", expected one of: Ready, Succeeded, Complete' },
          { path: at('[1]'), message: 'expected a rule ({targetReplicatedJobs: [names], status} or {name, status}), got number 7' },
        ],
      },
    ];
    for (const tc of cases) {
      it(tc.name, () => {
        assert.deepEqual(parseStartupRules(tc.text), { ok: false, errors: tc.want });
      });
    }

    it('text that is not YAML, saying where the parser stopped', () => {
      // The detail is the YAML parser's own first line; only its shape is pinned here.
      const parsed = parseStartupRules('- {name: a, status: Ready');
      assert.equal(parsed.ok, false);
      if (parsed.ok) return;
      assert.equal(parsed.errors.length, 1);
      assert.equal(parsed.errors[0]?.path, STARTUP_RULES_PATH);
      assert.match(parsed.errors[0]?.message ?? '', /^not valid YAML or JSON: .+ at line 1, column \d+$/);
    });

    it('text nested deeper than Lineup reads, before the YAML parser would overflow its stack', () => {
      const parsed = parseStartupRules(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
      assert.deepEqual(parsed, {
        ok: false,
        errors: [{ path: STARTUP_RULES_PATH, message: 'document nested too deeply: more than 100 levels of lists and mappings at line 1, column 101, expected at most 100' }],
      });
    });
  });

  describe('startupRulesOf', () => {
    it('is undefined when the JobSet has no startup-rules annotation', () => {
      assert.equal(startupRulesOf(makeJobSet('js').replicatedJob('a', 1).obj()), undefined);
    });

    it('parses the annotation of the seed example', () => {
      // Prepare
      const file = examplePath('seed-draft-rules.yaml');
      const [jobSet] = loadedJobSets(loadJobSets(readFileSync(file, 'utf8'), file));
      assert.ok(jobSet);
      // Act
      const parsed = startupRulesOf(jobSet);
      // Assess
      assert.ok(parsed?.ok);
      assert.deepEqual(parsed.rules, [
        { targetReplicatedJobs: ['dataset'], status: 'Complete' },
        { targetReplicatedJobs: ['driver'], status: 'Ready' },
      ]);
    });

    it('returns the errors of an annotation that does not parse', () => {
      const jobSet = makeJobSet('js').annotation('lineup.dev/startup-rules', 'nope').obj();
      assert.deepEqual(startupRulesOf(jobSet), { ok: false, errors: [{ path: STARTUP_RULES_PATH, message: 'expected a list of rules ({targetReplicatedJobs: [names], status} or {name, status}), got the string "nope"' }] });
    });
  });
});
