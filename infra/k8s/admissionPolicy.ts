/**
 * The ValidatingAdmissionPolicy (admissionregistration.k8s.io/v1) that enforces Lineup's
 * startup validation rules at admission, in CEL, with no webhook pod: the API server itself
 * refuses a JobSet whose startup policy could never run, before anything is created.
 *
 * The rules are those of lib/jobset/validation.ts (validateFirstReplicatedJob, validateDependsOn,
 * validateStartupPolicyExclusive, validateStartupRules) and the messages are theirs, built from
 * the same constants (AdmissionMessage, ValidationMessage in lib/jobset/admission.ts,
 * StartupRulesMessage in lib/jobset/startupRules.ts) so a user sees the same words from kubectl and from `lineup validate`.
 *
 * What CEL cannot do is left to the reconciler, which validates every JobSet on every pass and
 * sets the `Rejected` condition: CEL cannot parse the `lineup.dev/startup-rules` annotation
 * (YAML), so the rules' shape, their statuses, unknown or twice-named replicatedJobs stay the
 * reconciler's; the policy enforces only that the annotation is the JobSet's one startup form.
 * The CRD already enforces some of these rules (dependsOn maxItems and list-map keys, the InOrder
 * exclusion); the policy repeats them so its messages match Lineup's.
 */
import { JOBSET_API_VERSION, LineupKey } from '../../lib/jobset/api.ts';
import { MAX_DEPENDS_ON, AdmissionMessage, ValidationMessage } from '../../lib/jobset/admission.ts';
import { StartupRulesMessage } from '../../lib/jobset/startupRules.ts';
import { KubeName } from './names.ts';

/** AdmissionPolicyOptions: which JobSets the policy applies to. */
export interface AdmissionPolicyOptions {
  /** spec.managedBy value of Lineup's JobSets. */
  readonly controllerName: string;
  /** Also validate JobSets without spec.managedBy (when the deployment claims them). */
  readonly claimUnmanaged: boolean;
}

/** PolicyValidation: one CEL validation, with the comment that says which rule it is. */
export interface PolicyValidation {
  readonly expression: string;
  /** Shown when messageExpression is absent or fails to evaluate. @default the API server's own text naming the expression */
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason: 'Invalid';
  readonly comment: string;
}

/** PolicyVariable: a named CEL expression other expressions read as `variables.<name>`. */
export interface PolicyVariable {
  readonly name: string;
  readonly expression: string;
}

/** MatchCondition: a CEL precondition; the policy applies only when every one holds. */
export interface MatchCondition {
  readonly name: string;
  readonly expression: string;
  readonly comment: string;
}

/** celString: `text` as a CEL string literal (CEL's double-quoted strings take JSON's escapes). */
export const celString = (text: string): string => JSON.stringify(text);

/**
 * celMessage: a CEL string expression that renders like `text`, with each slot (a marker the
 * caller passed into the message function instead of a value) replaced by a CEL expression.
 * This lets the policy reuse the message functions of lib/jobset/admission.ts and lib/jobset/startupRules.ts instead of copying them.
 *
 * @example celMessage(ValidationMessage.selfDependency(SLOT_A), { [SLOT_A]: 'r.name' })
 */
export const celMessage = (text: string, slots: Readonly<Record<string, string>>): string => {
  const parts: string[] = [];
  let rest = text;
  for (;;) {
    const next = Object.keys(slots)
      .map((marker) => ({ marker, at: rest.indexOf(marker) }))
      .filter(({ at }) => at >= 0)
      .sort((a, b) => a.at - b.at)[0];
    if (next === undefined) break;
    if (next.at > 0) parts.push(celString(rest.slice(0, next.at)));
    parts.push(`(${slots[next.marker] ?? ''})`);
    rest = rest.slice(next.at + next.marker.length);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(celString(rest));
  return parts.join(' + ');
};

// Markers passed to message functions in place of values (they cannot occur in real names).
const SLOT_A = '⟦a⟧';
const SLOT_B = '⟦b⟧';
// A number marker, for message functions that take a count or an index.
const SLOT_N = 987654321;

const RULES_KEY = celString(LineupKey.StartupRulesAnnotation);

// ----- Predicates over one replicatedJob `r` and one of its dependsOn items `d` (CEL text). -----

/** selfReference: `d` names the replicatedJob it belongs to. */
const selfReference = (r: string, d: string): string => `${d}.name == ${r}.name`;
/** notEarlier: `d` names neither `r` itself nor a replicatedJob listed before `r` (an unknown name or a forward reference). */
const notEarlier = (r: string, d: string): string =>
  `${d}.name != ${r}.name && !(variables.names.indexOf(${d}.name) >= 0 && variables.names.indexOf(${d}.name) < variables.names.indexOf(${r}.name))`;
/** duplicated: `d`'s name appears more than once in `r`'s dependsOn. */
const duplicated = (r: string, d: string): string => `${r}.dependsOn.filter(e, e.name == ${d}.name).size() > 1`;

/** offenders: the replicatedJobs with dependsOn having an item for which `bad` holds. */
const offenders = (bad: (r: string, d: string) => string): string => `variables.rjobs.filter(r, has(r.dependsOn) && r.dependsOn.exists(d, ${bad('r', 'd')}))`;

/** firstOffendingItem: the first dependsOn item of `r` for which `bad` holds. */
const firstOffendingItem = (r: string, bad: (r: string, d: string) => string): string => `${r}.dependsOn.filter(d, ${bad(r, 'd')})[0]`;

/** policyVariables: the values the validations share, each computed once per request. */
export const policyVariables = (): PolicyVariable[] => [
  { name: 'rjobs', expression: 'has(object.spec.replicatedJobs) ? object.spec.replicatedJobs : []' },
  { name: 'names', expression: 'variables.rjobs.map(r, r.name)' },
  { name: 'inOrder', expression: "has(object.spec.startupPolicy) && object.spec.startupPolicy.startupPolicyOrder == 'InOrder'" },
  { name: 'dependsOnNames', expression: 'variables.rjobs.filter(r, has(r.dependsOn)).map(r, r.name)' },
  { name: 'hasStartupRules', expression: `has(object.metadata.annotations) && ${RULES_KEY} in object.metadata.annotations` },
  { name: 'selfDependent', expression: offenders(selfReference) },
  { name: 'notEarlier', expression: offenders(notEarlier) },
  { name: 'duplicated', expression: offenders(duplicated) },
  { name: 'tooMany', expression: `variables.rjobs.filter(r, has(r.dependsOn) && size(r.dependsOn) > ${MAX_DEPENDS_ON})` },
];

/** policyValidations: the startup rules, in the order validateJobSet checks them. */
export const policyValidations = (): PolicyValidation[] => {
  const selfR = 'variables.selfDependent[0]';
  const earlyR = 'variables.notEarlier[0]';
  const dupR = 'variables.duplicated[0]';
  const manyR = 'variables.tooMany[0]';
  const dupD = firstOffendingItem(dupR, duplicated);
  return [
    {
      comment: 'validateFirstReplicatedJob: the first replicatedJob has nothing earlier to depend on (upstream webhook).',
      expression: 'size(variables.rjobs) == 0 || !has(variables.rjobs[0].dependsOn)',
      message: AdmissionMessage.firstReplicatedJobDependsOn,
      reason: 'Invalid',
    },
    {
      comment: 'validateDependsOn: no self-dependency (upstream admits it and the replicatedJob never starts; Lineup rejects it).',
      expression: 'size(variables.selfDependent) == 0',
      message: ValidationMessage.selfDependency('<replicatedJob>'),
      messageExpression: celMessage(ValidationMessage.selfDependency(SLOT_A), { [SLOT_A]: `${selfR}.name` }),
      reason: 'Invalid',
    },
    {
      comment: 'validateDependsOn: dependsOn names only replicatedJobs listed earlier (upstream webhook: no unknown name, no forward reference).',
      expression: 'size(variables.notEarlier) == 0',
      message: AdmissionMessage.cannotDependOn('<replicatedJob>', '<a replicatedJob not listed before it>'),
      messageExpression: celMessage(AdmissionMessage.cannotDependOn(SLOT_A, SLOT_B), {
        [SLOT_A]: `${earlyR}.name`,
        [SLOT_B]: `${firstOffendingItem(earlyR, notEarlier)}.name`,
      }),
      reason: 'Invalid',
    },
    {
      comment: `validateDependsOn: at most MAX_DEPENDS_ON (${MAX_DEPENDS_ON}) items (the CRD's maxItems, repeated for Lineup's message).`,
      expression: 'size(variables.tooMany) == 0',
      messageExpression: celMessage(ValidationMessage.tooManyDependsOn(SLOT_N), { [String(SLOT_N)]: `string(size(${manyR}.dependsOn))` }),
      reason: 'Invalid',
    },
    {
      comment: "validateDependsOn: no name twice in one dependsOn (the CRD's list-map key, repeated for Lineup's message).",
      expression: 'size(variables.duplicated) == 0',
      messageExpression: celMessage(ValidationMessage.duplicateDependsOn(SLOT_A, SLOT_N), {
        [SLOT_A]: `${dupD}.name`,
        [String(SLOT_N)]: `string(${dupR}.dependsOn.map(e, e.name).indexOf(${dupD}.name))`,
      }),
      reason: 'Invalid',
    },
    {
      comment: 'validateStartupPolicyExclusive: InOrder and dependsOn are mutually exclusive (upstream CRD rule).',
      expression: '!(variables.inOrder && size(variables.dependsOnNames) > 0)',
      message: AdmissionMessage.startupPolicyAndDependsOn,
      reason: 'Invalid',
    },
    {
      comment: `validateStartupRules: the ${LineupKey.StartupRulesAnnotation} annotation is the only startup form (not with InOrder). Its content (YAML) is checked by the reconciler, which sets Rejected.`,
      expression: '!(variables.hasStartupRules && variables.inOrder)',
      message: StartupRulesMessage.twoForms('startupPolicyOrder InOrder'),
      reason: 'Invalid',
    },
    {
      comment: `validateStartupRules: the ${LineupKey.StartupRulesAnnotation} annotation is the only startup form (not with dependsOn).`,
      expression: '!(variables.hasStartupRules && size(variables.dependsOnNames) > 0)',
      message: StartupRulesMessage.twoForms('dependsOn'),
      messageExpression: celMessage(StartupRulesMessage.twoForms(SLOT_A), { [SLOT_A]: `${celString('dependsOn on replicatedJob ')} + variables.dependsOnNames.join(", ")` }),
      reason: 'Invalid',
    },
  ];
};

/** startupRulesValue: CEL for the annotation's value on `object` as a list of zero or one string (absent ≠ empty). */
const startupRulesValue = (object: string): string =>
  `(has(${object}.metadata.annotations) && ${RULES_KEY} in ${object}.metadata.annotations ? [${object}.metadata.annotations[${RULES_KEY}]] : [])`;

/** matchConditions: the JobSets the policy applies to, and the requests worth checking. */
export const matchConditions = (options: AdmissionPolicyOptions): MatchCondition[] => [
  {
    name: 'managed-by-lineup',
    comment: options.claimUnmanaged
      ? `Lineup's JobSets: spec.managedBy is ${options.controllerName}, or absent (this deployment claims unmanaged JobSets).`
      : `Lineup's JobSets only: spec.managedBy is ${options.controllerName}; everyone else's JobSets are not Lineup's to judge.`,
    expression: `has(object.spec.managedBy) ? object.spec.managedBy == ${celString(options.controllerName)} : ${String(options.claimUnmanaged)}`,
  },
  {
    name: 'create-or-startup-rules-changed',
    comment:
      'spec.replicatedJobs, startupPolicy and managedBy are immutable (CRD), so after CREATE only a change of the startup-rules annotation can break a rule; other updates (status, finalizers, other annotations) pass untouched.',
    expression: `request.operation == 'CREATE' || ${startupRulesValue('object')} != ${startupRulesValue('oldObject')}`,
  },
];

/** jobSetResourceRule: the matchConstraints rule selecting JobSet creates and updates. */
const jobSetResourceRule = () => {
  const [group = '', version = ''] = JOBSET_API_VERSION.split('/');
  return { apiGroups: [group], apiVersions: [version], operations: ['CREATE', 'UPDATE'], resources: ['jobsets'] };
};

/** validatingAdmissionPolicy: the policy object (comments rendered separately, see infra/k8s/manifests.ts). */
export const validatingAdmissionPolicy = (options: AdmissionPolicyOptions) => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: KubeName.admissionPolicy, labels: { 'app.kubernetes.io/part-of': 'lineup' } },
  spec: {
    // A JobSet the policy cannot evaluate is refused rather than let through unchecked.
    failurePolicy: 'Fail',
    matchConstraints: { resourceRules: [jobSetResourceRule()] },
    matchConditions: matchConditions(options).map(({ name, expression }) => ({ name, expression })),
    variables: policyVariables(),
    validations: policyValidations().map(({ expression, message, messageExpression, reason }) => ({
      expression,
      ...(message === undefined ? {} : { message }),
      ...(messageExpression === undefined ? {} : { messageExpression }),
      reason,
    })),
  },
});

/** validatingAdmissionPolicyBinding: binds the policy cluster-wide with the Deny action. */
export const validatingAdmissionPolicyBinding = () => ({
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicyBinding',
  metadata: { name: KubeName.admissionPolicy, labels: { 'app.kubernetes.io/part-of': 'lineup' } },
  spec: { policyName: KubeName.admissionPolicy, validationActions: ['Deny'] },
});
