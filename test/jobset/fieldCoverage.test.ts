/**
 * The "Field coverage" table of docs/conformance.md against the CRD this repository ships: every field path of the
 * JobSet spec has a row saying how Lineup handles it (implemented, refused, passed through), each
 * row names a field the CRD has, and each test it cites as proof exists. A field added by a
 * future upstream CRD fails this test until the table says what Lineup does with it.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import * as z from 'zod';
import { JOBSET_API_VERSION } from '../../lib/jobset/api.ts';
import { jobSetCrdPath, repoPath } from '../repoFiles.ts';

/** The parts of an OpenAPI v3 schema node the walk follows. */
interface SchemaNode {
  readonly properties?: Readonly<Record<string, SchemaNode>> | undefined;
  readonly items?: SchemaNode | undefined;
}

const SchemaNodeSchema: z.ZodType<SchemaNode> = z.lazy(() => z.looseObject({ properties: z.record(z.string(), SchemaNodeSchema).optional(), items: SchemaNodeSchema.optional() }));

const CrdSchema = z.looseObject({
  spec: z.looseObject({ versions: z.array(z.looseObject({ name: z.string(), schema: z.looseObject({ openAPIV3Schema: SchemaNodeSchema }) })) }),
});

/** specSchema: the v1alpha2 schema of `spec` in the shipped CRD. */
const specSchema = (): SchemaNode => {
  const crd = CrdSchema.parse(parse(readFileSync(jobSetCrdPath(), 'utf8')));
  const version = JOBSET_API_VERSION.split('/')[1];
  const spec = crd.spec.versions.find((v) => v.name === version)?.schema.openAPIV3Schema.properties?.['spec'];
  if (!spec) throw new Error(`the CRD has no ${version} spec schema`);
  return spec;
};

/**
 * fieldPaths: every field path under `node`, `spec.a.b` for objects and `spec.a[].b` through
 * lists; a list's item is not a field of its own. The walk descends into everything, embedded
 * Kubernetes objects included: the table decides where `.*` may stand for a whole subtree.
 */
export const fieldPaths = (node: SchemaNode, path: string): string[] => {
  const below = node.items ? fieldPaths(node.items, `${path}[]`) : [];
  const own = Object.entries(node.properties ?? {}).flatMap(([key, child]) => [`${path}.${key}`, ...fieldPaths(child, `${path}.${key}`)]);
  return [...own, ...below];
};

/** One row of the table. */
interface CoverageRow {
  readonly path: string;
  readonly handling: string;
  readonly proof: string;
}

/** coverageRows: the rows of the "## Field coverage" table in docs/conformance.md. */
const coverageRows = (readme: string): CoverageRow[] => {
  const start = readme.indexOf('\n## Field coverage\n');
  assert.ok(start >= 0, 'docs/conformance.md has a "## Field coverage" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const cells = line.split(' | ').map((cell) => cell.replace(/^\| ?/, '').replace(/ ?\|$/, ''));
      const path = /^`([^`]+)`$/.exec(cells[0] ?? '')?.[1];
      assert.ok(path, `a row names one field in backticks: ${line}`);
      return { path, handling: cells[1] ?? '', proof: cells[2] ?? '' };
    });
};

/** covers: the row's path is the field, or a `.*` row whose prefix the field is (or lies under). */
const covers = (row: string, field: string): boolean =>
  row === field || (row.endsWith('.*') && (field === row.slice(0, -2) || field.startsWith(`${row.slice(0, -2)}.`)));

/** uncovered: the fields of `fields` no row covers. */
const uncovered = (rows: readonly string[], fields: readonly string[]): string[] => fields.filter((field) => !rows.some((row) => covers(row, field)));

const HANDLINGS = /^(implemented|refused|passed through)\b/;

describe('jobset/fieldCoverage: the "Field coverage" table of docs/conformance.md against the shipped CRD', () => {
  const fields = fieldPaths(specSchema(), 'spec');
  const rows = coverageRows(readFileSync(repoPath('docs/conformance.md'), 'utf8'));
  const paths = rows.map((row) => row.path);

  it('the walk reaches the fields Lineup knows and the embedded objects (it can fail)', () => {
    for (const field of ['spec.replicatedJobs[].dependsOn[].status', 'spec.volumeClaimPolicies[].retentionPolicy.whenDeleted', 'spec.replicatedJobs[].template.spec.template.spec.containers']) {
      assert.ok(fields.includes(field), `${field} in ${fields.length} paths`);
    }
    assert.deepEqual(uncovered(paths, ['spec.scheduling', 'spec.scheduling.policy']), ['spec.scheduling', 'spec.scheduling.policy'], 'a field of a future CRD is reported');
  });

  it('has a row for every field path of the JobSet spec', () => {
    assert.deepEqual(uncovered(paths, fields), []);
  });

  it('names only fields the CRD has, each once', () => {
    const known = new Set(fields);
    assert.deepEqual(
      // A `.*` row may stand for a list's items (`templates[].*`): its field is the list.
      paths.filter((path) => !known.has(path.endsWith('.*') ? path.slice(0, -2).replace(/\[\]$/, '') : path)),
      [],
    );
    assert.deepEqual(
      paths.filter((path, index) => paths.indexOf(path) !== index),
      [],
    );
  });

  it('says for each field whether it is implemented, refused or passed through, and its proof exists', () => {
    for (const row of rows) {
      assert.match(row.handling, HANDLINGS, `${row.path}: handling "${row.handling}"`);
      const cited = [...row.proof.matchAll(/`(test\/[^`]+\.test\.ts)`/g)].map((match) => match[1] ?? '');
      assert.ok(cited.length > 0, `${row.path}: cites a test as proof, got "${row.proof}"`);
      for (const file of cited) assert.ok(existsSync(repoPath('.') + file), `${row.path}: ${file} exists`);
    }
  });
});
