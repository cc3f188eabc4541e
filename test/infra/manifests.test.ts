/**
 * infra/manifests/: every file parses, holds the kinds it should, and is what the generator
 * writes; the ClusterRoles grant exactly the verbs lib/k8s calls (compared verb by verb with the
 * tables in lib/k8s/gateway.ts, independently of the generator's merging); the forwarder runs
 * `lineup forward` with the variables lib/hosts/lambdaConfig.ts reads; the admission policy's
 * CEL reads the fields the startup rules are about.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isSeq, parseAllDocuments } from 'yaml';
import type { Document } from 'yaml';
import { FORWARDER_PLACEHOLDERS } from '../../infra/k8s/forwarder.ts';
import { DEFAULT_MANIFEST_OPTIONS, ManifestFile, manifestFiles } from '../../infra/k8s/manifests.ts';
import { FORWARDER_IMAGE_ENTRY, FORWARDER_NODE_ARGS, FORWARDER_NODE_OPTIONS, FORWARDER_RESOURCES, KubeGroup, KubeName } from '../../infra/k8s/names.ts';
import { MANIFESTS_DIR } from '../../infra/manifests/generate.ts';
import { DEFAULT_CONTROLLER_NAME } from '../../lib/jobset/managedBy.ts';
import { JOBSET_API_VERSION, LineupKey } from '../../lib/jobset/api.ts';
import { MAX_DEPENDS_ON } from '../../lib/jobset/admission.ts';
import { EnvVar } from '../../lib/hosts/lambdaConfig.ts';
import { actionVerbs, observeVerbs, watchVerbs } from '../../lib/k8s/gateway.ts';
import type { ApiAccess } from '../../lib/k8s/gateway.ts';

interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly [field: string]: unknown;
}

const read = (file: string): string => readFileSync(join(MANIFESTS_DIR, file), 'utf8');
const parsedDocuments = (text: string): Document.Parsed[] => {
  const docs = parseAllDocuments(text);
  return Array.isArray(docs) ? docs : [];
};
const documents = (file: string): Document.Parsed[] => parsedDocuments(read(file));
const objects = (file: string): KubeObject[] => documents(file).map((doc) => doc.toJS() as KubeObject);
const byKind = (file: string, kind: string, name?: string): KubeObject => {
  const found = objects(file).find((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
  if (!found) throw new Error(`${file} has no ${kind}${name === undefined ? '' : ` ${name}`}`);
  return found;
};

/** triples: every (group, resource, verb) an access list allows, as `group/resource:verb` strings. */
const triples = (accesses: readonly ApiAccess[]): string[] =>
  [...new Set(accesses.flatMap((a) => a.verbs.map((verb) => `${a.group}/${a.subresource === undefined ? a.resource : `${a.resource}/${a.subresource}`}:${verb}`)))].sort();

interface Rule {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
}
const ruleTriples = (rules: readonly Rule[]): string[] =>
  [...new Set(rules.flatMap((rule) => rule.apiGroups.flatMap((group) => rule.resources.flatMap((resource) => rule.verbs.map((verb) => `${group}/${resource}:${verb}`)))))].sort();

describe('infra/manifests', () => {
  it('every file parses as YAML without errors or warnings', () => {
    for (const file of Object.values(ManifestFile)) {
      for (const doc of documents(file)) {
        assert.deepEqual(doc.errors, [], file);
        assert.deepEqual(doc.warnings, [], file);
      }
    }
  });

  it('every file holds the kinds it should', () => {
    const kinds = (file: string) => objects(file).map((object) => `${object.apiVersion} ${object.kind}`);
    assert.deepEqual(kinds(ManifestFile.clusterRole), ['rbac.authorization.k8s.io/v1 ClusterRole', 'rbac.authorization.k8s.io/v1 ClusterRole']);
    assert.deepEqual(kinds(ManifestFile.clusterRoleBinding), ['rbac.authorization.k8s.io/v1 ClusterRoleBinding', 'rbac.authorization.k8s.io/v1 ClusterRoleBinding']);
    assert.deepEqual(kinds(ManifestFile.forwarder), ['v1 Namespace', 'v1 ServiceAccount', 'apps/v1 Deployment']);
    assert.deepEqual(kinds(ManifestFile.admissionPolicy), [
      'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy',
      'admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding',
    ]);
  });

  it('every committed file is what infra/manifests/generate.ts writes', () => {
    for (const [file, text] of Object.entries(manifestFiles())) assert.equal(read(file), text, `${file} is stale: run node infra/manifests/generate.ts`);
  });

  describe('RBAC', () => {
    it('grants the reconciler exactly the verbs of actionVerbs and observeVerbs', () => {
      const role = byKind(ManifestFile.clusterRole, 'ClusterRole', KubeName.reconcilerRole);
      assert.deepEqual(ruleTriples(role['rules'] as Rule[]), triples([...Object.values(actionVerbs).flat(), ...observeVerbs]));
    });

    it('grants the forwarder exactly the verbs of watchVerbs', () => {
      const role = byKind(ManifestFile.clusterRole, 'ClusterRole', KubeName.forwarderRole);
      assert.deepEqual(ruleTriples(role['rules'] as Rule[]), triples(watchVerbs));
    });

    it('puts a justification comment above every rule, naming a caller for every verb', () => {
      for (const doc of documents(ManifestFile.clusterRole)) {
        const rules = doc.get('rules', true);
        assert.ok(isSeq(rules) && rules.items.length > 0, 'a ClusterRole without rules');
        rules.items.forEach((rule, index) => {
          assert.ok(isMap(rule));
          // The parser hangs the first item's comment on the sequence itself.
          const comment = (index === 0 ? (rule.commentBefore ?? rules.commentBefore) : rule.commentBefore) ?? '';
          assert.ok(comment.trim().length > 40, `rule without justification: ${String(rule)}`);
          const verbs = (rule.toJSON() as Rule).verbs;
          for (const verb of verbs) assert.match(comment, new RegExp(`^\\s*${verb}: \\S`, 'm'), `no caller named for ${verb}`);
        });
      }
    });

    it('binds the reconciler group, the forwarder group and the forwarder ServiceAccount', () => {
      const subjects = (name: string) => (byKind(ManifestFile.clusterRoleBinding, 'ClusterRoleBinding', name)['subjects'] as { kind: string; name: string; namespace?: string }[]);
      assert.deepEqual(subjects(KubeName.reconcilerRole).map((s) => [s.kind, s.name]), [['Group', KubeGroup.reconciler]]);
      assert.deepEqual(subjects(KubeName.forwarderRole).map((s) => [s.kind, s.name, s.namespace]), [
        ['Group', KubeGroup.forwarder, undefined],
        ['ServiceAccount', KubeName.forwarder, KubeName.namespace],
      ]);
      for (const name of [KubeName.reconcilerRole, KubeName.forwarderRole]) {
        assert.deepEqual(byKind(ManifestFile.clusterRoleBinding, 'ClusterRoleBinding', name)['roleRef'], { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name });
      }
    });
  });

  describe('forwarder', () => {
    const deployment = byKind(ManifestFile.forwarder, 'Deployment');
    const pod = (deployment['spec'] as { template: { spec: Record<string, unknown> } }).template.spec;
    const [container] = pod['containers'] as Record<string, unknown>[];

    it('runs one replica of the forwarder bundle as the forwarder ServiceAccount, the file the image holds', () => {
      assert.equal((deployment['spec'] as { replicas: number }).replicas, 1);
      assert.deepEqual(container?.['command'], ['node', ...FORWARDER_NODE_ARGS, FORWARDER_IMAGE_ENTRY]);
      assert.equal(container?.['args'], undefined);
      const dockerfile = readFileSync(join(MANIFESTS_DIR, '..', 'forwarder.Dockerfile'), 'utf8');
      assert.match(dockerfile, new RegExp(`^COPY --from=bundle \\S+ ${FORWARDER_IMAGE_ENTRY}$`, 'm'));
      assert.match(dockerfile, new RegExp(`^CMD \\["node", "${FORWARDER_IMAGE_ENTRY}"\\]$`, 'm'));
      assert.equal(pod['serviceAccountName'], KubeName.forwarder);
      assert.equal(deployment.metadata.namespace, KubeName.namespace);
    });

    it('configures it with the variables lib/hosts/lambdaConfig.ts reads, each from a placeholder', () => {
      const env = container?.['env'] as { name: string; value: string }[];
      const lineupNames = env.map((variable) => variable.name).filter((name) => name.startsWith('LINEUP_'));
      const known = new Set<string>(Object.values(EnvVar));
      for (const name of lineupNames) assert.ok(known.has(name), `${name} is not an EnvVar`);
      assert.deepEqual(
        new Set(lineupNames),
        new Set([EnvVar.ForwarderCluster, EnvVar.TableName, EnvVar.EventBusName, EnvVar.ControllerName, EnvVar.ClaimUnmanaged]),
      );
      for (const variable of env) if (variable.name !== 'NODE_OPTIONS') assert.equal(variable.value, `\${${variable.name}}`);
    });

    it('runs Node with the heap options the footprint was measured with', () => {
      const env = container?.['env'] as { name: string; value: string }[];
      assert.deepEqual(env.filter((variable) => variable.name === 'NODE_OPTIONS'), [{ name: 'NODE_OPTIONS', value: FORWARDER_NODE_OPTIONS }]);
    });

    it('leaves exactly the documented placeholders to fill in, quoted so they stay strings', () => {
      const text = read(ManifestFile.forwarder);
      const used = new Set([...text.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((match) => match[1]));
      assert.deepEqual(used, new Set(Object.keys(FORWARDER_PLACEHOLDERS)));
      assert.match(text, /value: "\$\{LINEUP_CLAIM_UNMANAGED\}"/);
    });

    it('is hardened: non-root, no privilege escalation, read-only root, no capabilities, RuntimeDefault seccomp, restricted namespace', () => {
      assert.deepEqual(container?.['securityContext'], { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } });
      assert.deepEqual((pod['securityContext'] as { seccompProfile: unknown }).seccompProfile, { type: 'RuntimeDefault' });
      assert.equal((byKind(ManifestFile.forwarder, 'Namespace').metadata as { labels?: Record<string, string> }).labels?.['pod-security.kubernetes.io/enforce'], 'restricted');
    });

    it('requests the resources the cost model prices', () => {
      assert.deepEqual(container?.['resources'], {
        requests: { cpu: `${FORWARDER_RESOURCES.requestCpuMillis}m`, memory: `${FORWARDER_RESOURCES.requestMemoryMiB}Mi` },
        limits: { memory: `${FORWARDER_RESOURCES.limitMemoryMiB}Mi` },
      });
    });
  });

  describe('admission policy', () => {
    const policy = byKind(ManifestFile.admissionPolicy, 'ValidatingAdmissionPolicy');
    const spec = policy['spec'] as {
      failurePolicy: string;
      matchConstraints: { resourceRules: { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] }[] };
      matchConditions: { name: string; expression: string }[];
      variables: { name: string; expression: string }[];
      validations: { expression: string; message?: string; messageExpression?: string }[];
    };
    const cel = [...spec.variables.map((v) => v.expression), ...spec.validations.map((v) => v.expression)].join('\n');

    it('matches creates and updates of JobSets in the API group Lineup serves', () => {
      assert.deepEqual(spec.matchConstraints.resourceRules, [
        { apiGroups: [JOBSET_API_VERSION.split('/')[0]], apiVersions: [JOBSET_API_VERSION.split('/')[1]], operations: ['CREATE', 'UPDATE'], resources: ['jobsets'] },
      ]);
      assert.equal(spec.failurePolicy, 'Fail');
    });

    it("judges only JobSets managed by the controller name (and unmanaged ones only when claimed)", () => {
      const managed = spec.matchConditions.find((condition) => condition.name === 'managed-by-lineup');
      assert.equal(managed?.expression, `has(object.spec.managedBy) ? object.spec.managedBy == "${DEFAULT_CONTROLLER_NAME}" : false`);
      const claimed = parsedDocuments(manifestFiles({ controllerName: 'example.com/x', claimUnmanaged: true })[ManifestFile.admissionPolicy] ?? '');
      const claimedSpec = ((claimed[0]?.toJS() as KubeObject)['spec'] as typeof spec).matchConditions.find((condition) => condition.name === 'managed-by-lineup');
      assert.equal(claimedSpec?.expression, 'has(object.spec.managedBy) ? object.spec.managedBy == "example.com/x" : true');
      assert.equal(DEFAULT_MANIFEST_OPTIONS.controllerName, DEFAULT_CONTROLLER_NAME);
    });

    it('reads the fields the startup rules are about', () => {
      for (const field of ['object.spec.replicatedJobs', 'dependsOn', 'r.name', 'd.name', 'object.spec.startupPolicy', 'startupPolicyOrder', "'InOrder'", 'object.metadata.annotations', `"${LineupKey.StartupRulesAnnotation}"`, `> ${MAX_DEPENDS_ON}`]) {
        assert.ok(cel.includes(field), `no expression reads ${field}`);
      }
    });

    it('checks each rule with its own validation, using the upstream messages where upstream has them', () => {
      const expressions = spec.validations.map((v) => v.expression);
      assert.ok(expressions.includes('size(variables.rjobs) == 0 || !has(variables.rjobs[0].dependsOn)'), 'first replicatedJob has no dependsOn');
      for (const variable of ['selfDependent', 'notEarlier', 'duplicated', 'tooMany']) assert.ok(expressions.includes(`size(variables.${variable}) == 0`), variable);
      assert.ok(expressions.some((e) => e.includes('variables.inOrder') && e.includes('variables.dependsOnNames')), 'InOrder and dependsOn are exclusive');
      assert.ok(expressions.some((e) => e.includes('variables.hasStartupRules') && e.includes('variables.inOrder')), 'the rules annotation excludes InOrder');
      assert.ok(expressions.some((e) => e.includes('variables.hasStartupRules') && e.includes('variables.dependsOnNames')), 'the rules annotation excludes dependsOn');
      const messages = spec.validations.map((v) => v.message);
      // Upstream's strings, copied (jobset_webhook.go and the CRD's CEL rule), not read back from lib/jobset/admission.ts.
      assert.ok(messages.includes("DependsOn can't be set for the first ReplicatedJob"), JSON.stringify(messages));
      assert.ok(messages.includes('StartupPolicy and DependsOn APIs are mutually exclusive'), JSON.stringify(messages));
      for (const validation of spec.validations) assert.ok(validation.message !== undefined || validation.messageExpression !== undefined, validation.expression);
    });

    it('finds a forward reference by list position, not only by name', () => {
      const notEarlier = spec.variables.find((v) => v.name === 'notEarlier')?.expression ?? '';
      assert.match(notEarlier, /variables\.names\.indexOf\(d\.name\) < variables\.names\.indexOf\(r\.name\)/);
    });

    it('binds the policy with the Deny action', () => {
      const binding = byKind(ManifestFile.admissionPolicy, 'ValidatingAdmissionPolicyBinding');
      assert.deepEqual(binding['spec'], { policyName: policy.metadata.name, validationActions: ['Deny'] });
    });
  });
});
