/**
 * Lineup's RBAC, generated from the verb tables in lib/k8s/gateway.ts (actionVerbs,
 * observeVerbs, watchVerbs) so the ClusterRoles grant exactly what the code calls — no more,
 * and a verb the code starts using shows up here the next time the manifests are generated
 * (test/infra/manifests.test.ts fails until they are).
 *
 * Two roles, one per identity: the reconciler acts (actionVerbs) and observes (observeVerbs);
 * the forwarder only lists and watches (watchVerbs).
 */
import { actionVerbs, observeVerbs, watchVerbs } from '../../lib/k8s/gateway.ts';
import type { ApiAccess, KubeVerb } from '../../lib/k8s/gateway.ts';
import { KubeGroup, KubeName } from './names.ts';

/** VERB_ORDER: the order verbs are listed in a rule (read, watch, write), so the output is stable. */
const VERB_ORDER: readonly KubeVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/** Use: one caller's need for verbs on a resource, named for the justification comment. */
interface Use {
  /** What in Lineup calls it: an Action kind, `observe` or `watch`. */
  readonly by: string;
  readonly access: ApiAccess;
}

/** Justifications: why a role touches each resource, keyed by `<group>/<resource>[/<subresource>]` (core group written `core`). */
export type Justifications = Readonly<Record<string, string>>;

/**
 * RECONCILER_JUSTIFICATION: why the reconciler touches each resource at all. Each rule's
 * comment is this sentence plus, per verb, the callers that need it (derived from the verb
 * tables). A resource missing here fails generation.
 */
export const RECONCILER_JUSTIFICATION: Justifications = {
  'jobset.x-k8s.io/jobsets':
    'JobSets are what Lineup reconciles: each pass reads the live JobSet; annotations record finished Jobs; deletion applies ttlSecondsAfterFinished.',
  'jobset.x-k8s.io/jobsets/status': 'Lineup is the JobSet controller for its JobSets, so it writes their status (counters, conditions, restarts).',
  'batch/jobs':
    'Lineup creates every child Job at once (suspended where gated), un-suspends each when its gate opens, suspends them when the JobSet is suspended, deletes them on restart, and removes its finished-record finalizer.',
  'batch/jobs/status': "Un-suspending a Job that ran before clears status.startTime first, as upstream's resumeJob does.",
  'core/services': 'Each JobSet gets the headless Service upstream creates for pod DNS (subdomain).',
  'core/events': 'Lineup records a Kubernetes Event on the JobSet for each startup step and for rejections.',
  'core/persistentvolumeclaims':
    "A JobSet's volumeClaimPolicies become claims Lineup creates before the Jobs that mount them, as upstream does; one that exists is kept, so nothing else is needed.",
};

/** FORWARDER_JUSTIFICATION: why the forwarder touches each resource (it only reads). */
export const FORWARDER_JUSTIFICATION: Justifications = {
  'jobset.x-k8s.io/jobsets': "The forwarder lists and watches JobSets in every namespace and forwards the changes Lineup's decisions depend on.",
  'batch/jobs': 'The forwarder lists and watches child Jobs (label jobset.sigs.k8s.io/jobset-name): their ready, succeeded and failed counts open startup gates.',
};

/** resourceKey: the Justifications key of an access. */
export const resourceKey = (access: ApiAccess): string =>
  `${access.group === '' ? 'core' : access.group}/${access.resource}${access.subresource === undefined ? '' : `/${access.subresource}`}`;

/** rbacResource: the resource string RBAC uses (`resource/subresource`). */
const rbacResource = (access: ApiAccess): string => (access.subresource === undefined ? access.resource : `${access.resource}/${access.subresource}`);

/** JustifiedRule: an RBAC rule plus the comment that justifies it. */
export interface JustifiedRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly KubeVerb[];
  readonly justification: string;
}

/**
 * rulesFor: one rule per resource the uses touch, verbs merged and ordered by VERB_ORDER, each
 * with its justification: the resource's sentence, then `verb: caller, caller` lines.
 */
export const rulesFor = (uses: readonly Use[], justifications: Justifications): JustifiedRule[] => {
  const byResource = new Map<string, { access: ApiAccess; callers: Map<KubeVerb, Set<string>> }>();
  for (const use of uses) {
    const key = resourceKey(use.access);
    const entry = byResource.get(key) ?? { access: use.access, callers: new Map<KubeVerb, Set<string>>() };
    for (const verb of use.access.verbs) entry.callers.set(verb, (entry.callers.get(verb) ?? new Set<string>()).add(use.by));
    byResource.set(key, entry);
  }
  return [...byResource.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, { access, callers }]) => {
      const why = justifications[key];
      if (why === undefined) throw new Error(`no justification for ${key}, expected one sentence in infra/k8s/rbac.ts saying why Lineup needs it`);
      const verbs = VERB_ORDER.filter((verb) => callers.has(verb));
      const lines = verbs.map((verb) => `  ${verb}: ${[...(callers.get(verb) ?? [])].join(', ')}`);
      return { apiGroups: [access.group], resources: [rbacResource(access)], verbs, justification: [why, ...lines].join('\n') };
    });
};

/** reconcilerUses: every access the reconciler's actions and observe() make. */
export const reconcilerUses = (): Use[] => [
  ...Object.entries(actionVerbs).flatMap(([kind, accesses]) => accesses.map((access) => ({ by: kind, access }))),
  ...observeVerbs.map((access) => ({ by: 'observe (every pass reads the JobSet, its Jobs and Service)', access })),
];

/** forwarderUses: every access the forwarder's list and watch make. */
export const forwarderUses = (): Use[] => watchVerbs.map((access) => ({ by: 'KubeWatchSource (list, then watch from its resourceVersion)', access }));

/** ClusterRoleSpec: a ClusterRole to render, its rules justified. */
export interface ClusterRoleSpec {
  readonly name: string;
  readonly description: string;
  readonly rules: readonly JustifiedRule[];
}

/** clusterRoles: the reconciler's and the forwarder's ClusterRoles. */
export const clusterRoles = (): ClusterRoleSpec[] => [
  {
    name: KubeName.reconcilerRole,
    description: 'what the reconciler Lambda does in a cluster: lib/k8s/gateway.ts actionVerbs + observeVerbs',
    rules: rulesFor(reconcilerUses(), RECONCILER_JUSTIFICATION),
  },
  {
    name: KubeName.forwarderRole,
    description: 'what the forwarder (Deployment or Lambda watch session) does: lib/k8s/gateway.ts watchVerbs',
    rules: rulesFor(forwarderUses(), FORWARDER_JUSTIFICATION),
  },
];

/** RbacSubject: a ClusterRoleBinding subject. */
export type RbacSubject =
  | { readonly kind: 'Group'; readonly apiGroup: 'rbac.authorization.k8s.io'; readonly name: string }
  | { readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string };

/** ClusterRoleBindingSpec: a binding to render. */
export interface ClusterRoleBindingSpec {
  readonly name: string;
  readonly role: string;
  readonly subjects: readonly RbacSubject[];
  readonly description: string;
}

/** clusterRoleBindings: the groups the EKS access entries map to, and the in-cluster forwarder's ServiceAccount. */
export const clusterRoleBindings = (): ClusterRoleBindingSpec[] => [
  {
    name: KubeName.reconcilerRole,
    role: KubeName.reconcilerRole,
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: KubeGroup.reconciler }],
    description: `the reconciler's IAM role is in group ${KubeGroup.reconciler} through its EKS access entry (infra/constructs/lineupCluster.ts)`,
  },
  {
    name: KubeName.forwarderRole,
    role: KubeName.forwarderRole,
    subjects: [
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: KubeGroup.forwarder },
      { kind: 'ServiceAccount', name: KubeName.forwarder, namespace: KubeName.namespace },
    ],
    description: `the Lambda forwarder's IAM role is in group ${KubeGroup.forwarder} (EKS access entry); the in-cluster forwarder runs as ServiceAccount ${KubeName.namespace}/${KubeName.forwarder}`,
  },
];
