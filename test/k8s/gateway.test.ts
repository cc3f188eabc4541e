/**
 * The gateway's pure helpers. Its behaviour against a server is tested in
 * test/k8s/retry.test.ts (loopback) and test/integration/k8s/gateway.test.ts (kube-apiserver).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, InvalidObjectError } from '../../lib/errors.ts';
import { JobSchema } from '../../lib/jobset/schema.ts';
import { actionVerbs, observeVerbs, parseObject, watchVerbs } from '../../lib/k8s/gateway.ts';

describe('parseObject', () => {
  it('names the object and the fields when the server returns something the schema refuses', () => {
    assert.throws(
      () => parseObject(JobSchema, { metadata: { name: 'x' }, spec: { parallelism: 'two', template: {} } }, 'job ns/x'),
      (error: unknown) => error instanceof InvalidObjectError && error.code === ErrorCode.INVALID_OBJECT && /job ns\/x: .*spec\.parallelism/.test(error.message),
    );
  });
});

describe('verb tables', () => {
  it('use only RBAC verbs, and every access names a resource', () => {
    const verbs = new Set(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']);
    const accesses = [...Object.values(actionVerbs).flat(), ...observeVerbs, ...watchVerbs];
    assert.ok(accesses.length > 0, 'the verb tables are empty');
    for (const access of accesses) {
      assert.ok(access.resource.length > 0);
      assert.ok(access.verbs.length > 0);
      for (const verb of access.verbs) assert.ok(verbs.has(verb), verb);
    }
  });

  it('status writes are granted on the status subresource only', () => {
    assert.deepEqual(
      actionVerbs.UpdateJobSetStatus.filter((access) => access.subresource === 'status'),
      [{ group: 'jobset.x-k8s.io', resource: 'jobsets', subresource: 'status', verbs: ['update'] }],
    );
    assert.ok(actionVerbs.ResumeJob.some((access) => access.resource === 'jobs' && access.subresource === 'status' && access.verbs.includes('update')));
  });
});
