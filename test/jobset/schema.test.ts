import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import * as z from 'zod';
import { JOBSET_API_VERSION } from '../../lib/jobset/api.ts';
import { applyDefaults } from '../../lib/jobset/defaults.ts';
import { loadJobSets } from '../../lib/jobset/load.ts';
import { JobSetSchema } from '../../lib/jobset/schema.ts';
import { validateJobSet } from '../../lib/jobset/validation.ts';
import { exampleFiles, jobSetCrdPath } from '../repoFiles.ts';

/** The parts of an OpenAPI v3 schema node this test compares against. */
interface CrdNode {
  readonly type?: string | undefined;
  readonly properties?: Readonly<Record<string, CrdNode>> | undefined;
  readonly items?: CrdNode | undefined;
  readonly additionalProperties?: CrdNode | boolean | undefined;
  readonly enum?: readonly unknown[] | undefined;
}

const CrdNodeSchema: z.ZodType<CrdNode> = z.lazy(() =>
  z.looseObject({
    type: z.string().optional(),
    properties: z.record(z.string(), CrdNodeSchema).optional(),
    items: CrdNodeSchema.optional(),
    additionalProperties: z.union([z.boolean(), CrdNodeSchema]).optional(),
    enum: z.array(z.unknown()).optional(),
  }),
);

const CrdSchema = z.looseObject({
  spec: z.looseObject({
    versions: z.array(z.looseObject({ name: z.string(), schema: z.looseObject({ openAPIV3Schema: CrdNodeSchema }) })),
  }),
});

/** crdRoot: the v1alpha2 openAPIV3Schema of the upstream CRD (parsed once; the file is ~820 KB). */
const crdRoot = ((): CrdNode => {
  const crd = CrdSchema.parse(parse(readFileSync(jobSetCrdPath(), 'utf8')));
  const version = JOBSET_API_VERSION.split('/')[1];
  const found = crd.spec.versions.find((v) => v.name === version);
  if (!found) throw new Error(`the CRD has no ${version} version`);
  return found.schema.openAPIV3Schema;
})();

// Objects the CRD leaves opaque because the API server validates them itself (ObjectMeta).
const OPAQUE_IN_CRD = new Set(['JobSet.metadata']);

/** Result of comparing a zod schema with a CRD node: every mismatch, and how many fields were compared. */
interface Comparison {
  readonly mismatches: string[];
  compared: number;
}

/** compare: walks the zod schema and checks each declared field against the CRD node at the same path. */
const compare = (schema: z.core.$ZodType, node: CrdNode, path: string, out: Comparison): void => {
  out.compared++;
  const expectType = (type: string): boolean => {
    if (node.type === type) return true;
    out.mismatches.push(`${path}: JobSetSchema declares ${type}, the CRD says ${node.type ?? '(no type)'}`);
    return false;
  };
  const expectEnumSubset = (values: readonly unknown[]): void => {
    if (!node.enum) return;
    const extra = values.filter((v) => !node.enum?.includes(v));
    if (extra.length > 0) out.mismatches.push(`${path}: values ${JSON.stringify(extra)} are not in the CRD's enum ${JSON.stringify(node.enum)}`);
  };
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return compare(schema.unwrap(), node, path, out);
  // A field read through a transform (null timestamps read as absent) is checked by its input type.
  if (schema instanceof z.ZodPipe) return compare(schema.in, node, path, out);
  if (schema instanceof z.ZodObject) {
    if (!expectType('object')) return;
    if (!node.properties) {
      if (!OPAQUE_IN_CRD.has(path)) out.mismatches.push(`${path}: JobSetSchema declares fields, the CRD declares none`);
      return;
    }
    for (const [key, child] of Object.entries(schema.shape)) {
      const childNode = node.properties[key];
      if (childNode === undefined) out.mismatches.push(`${path}.${key}: declared by JobSetSchema, absent from the CRD`);
      else compare(child, childNode, `${path}.${key}`, out);
    }
    return;
  }
  if (schema instanceof z.ZodArray) {
    if (!expectType('array')) return;
    if (!node.items) out.mismatches.push(`${path}: the CRD's array has no items schema`);
    else compare(schema.element, node.items, `${path}[]`, out);
    return;
  }
  if (schema instanceof z.ZodRecord) {
    if (!expectType('object')) return;
    const values = node.additionalProperties;
    if (typeof values !== 'object') out.mismatches.push(`${path}: JobSetSchema declares a map, the CRD has no additionalProperties`);
    else compare(schema.valueType, values, `${path}{}`, out);
    return;
  }
  if (schema instanceof z.ZodString) return void expectType('string');
  if (schema instanceof z.ZodBoolean) return void expectType('boolean');
  if (schema instanceof z.ZodNumber) return void expectType(schema.isInt ? 'integer' : 'number');
  if (schema instanceof z.ZodEnum) {
    if (expectType('string')) expectEnumSubset(schema.options);
    return;
  }
  if (schema instanceof z.ZodLiteral) {
    if (expectType('string')) expectEnumSubset([...schema.values]);
    return;
  }
  out.mismatches.push(`${path}: the test does not know zod kind ${schema._zod.def.type}`);
};

describe('jobset/schema', () => {
  it('declares only fields the upstream CRD has, with compatible types and enum values', () => {
    // Prepare
    const out: Comparison = { mismatches: [], compared: 0 };
    // Act
    compare(JobSetSchema, crdRoot, 'JobSet', out);
    // Assess
    assert.deepEqual(out.mismatches, []);
    // Guard against a walk that silently stopped early.
    assert.ok(out.compared > 80, `only ${out.compared} schema nodes were compared`);
  });

  it('reports a field the CRD lacks (the walk can fail)', () => {
    const out: Comparison = { mismatches: [], compared: 0 };
    const Extended = JobSetSchema.extend({ spec: z.looseObject({ notAField: z.string() }) });
    compare(Extended, crdRoot, 'JobSet', out);
    assert.deepEqual(out.mismatches, ['JobSet.spec.notAField: declared by JobSetSchema, absent from the CRD']);
  });

  it('reports an enum value the CRD does not allow', () => {
    const out: Comparison = { mismatches: [], compared: 0 };
    const Extended = JobSetSchema.extend({ spec: z.looseObject({ startupPolicy: z.looseObject({ startupPolicyOrder: z.enum(['InOrder', 'Sometimes']) }) }) });
    compare(Extended, crdRoot, 'JobSet', out);
    assert.equal(out.mismatches.length, 1);
    assert.match(out.mismatches[0] ?? '', /^JobSet\.spec\.startupPolicy\.startupPolicyOrder: values \["Sometimes"\]/);
  });

  describe('reference examples', () => {
    for (const file of exampleFiles()) {
      it(`loads and validates ${file.split('/').pop() ?? file}`, () => {
        // Act
        const result = loadJobSets(readFileSync(file, 'utf8'), file);
        // Assess
        assert.equal(result.documents.length, 1);
        const [doc] = result.documents;
        assert.equal(doc?.outcome, 'loaded', JSON.stringify(doc));
        if (doc?.outcome !== 'loaded') return;
        assert.deepEqual(validateJobSet(applyDefaults(doc.jobSet)), []);
      });
    }
  });
});
