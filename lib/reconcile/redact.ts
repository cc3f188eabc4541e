/**
 * What the journal leaves out of the objects it keeps (docs/security.md): tenant data no decision reads.
 * The planner copies a replicatedJob's pod template into the Jobs it creates and decides nothing
 * on the values of its containers' environment, so a replay decides the same on inputs without
 * them — provided action digests are taken over the same redacted form (journal.ts
 * journalActionsOf), which they are whether or not the values were kept.
 *
 * Redacted, wherever they appear (the JobSet's replicatedJob templates, the Jobs' pod templates,
 * the actions that create Jobs):
 * - `env[].value` of every container, init container and ephemeral container — a literal value,
 *   often a password or a token. `env[].valueFrom` (a reference to a Secret, a ConfigMap, a
 *   field) and `envFrom` are kept: a reference says where a value lives, not what it is;
 * - the `kubectl.kubernetes.io/last-applied-configuration` annotation, which `kubectl apply`
 *   writes with the whole object as applied, environment values included.
 * A redacted value becomes REDACTED whatever it was (an empty one stays empty): not a digest of
 * it, since a fast digest of a short secret lets whoever holds the journal confirm a guess; a
 * change of value still shows, as the object's resourceVersion and generation change with it.
 */

/** REDACTED: what stands in the journal for a value left out. */
export const REDACTED = '<redacted>';

/** The annotation `kubectl apply` keeps the whole applied object in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** The pod spec lists whose entries are containers (their `env` is redacted). */
const CONTAINER_LISTS: ReadonlySet<string> = new Set(['containers', 'initContainers', 'ephemeralContainers']);

type Json = unknown;

const isPlainObject = (value: Json): value is Record<string, Json> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** redactEnv: an env list with each literal value replaced; the same list when none has one. */
const redactEnv = (env: readonly Json[]): readonly Json[] => {
  let changed = false;
  const result = env.map((variable) => {
    if (!isPlainObject(variable) || typeof variable['value'] !== 'string' || variable['value'] === '' || variable['value'] === REDACTED) return variable;
    changed = true;
    return { ...variable, value: REDACTED };
  });
  return changed ? result : env;
};

/** redactContainer: a container with its env redacted, and whatever else it holds walked. */
const redactContainer = (container: Json): Json => {
  if (!isPlainObject(container)) return container;
  const walked = redactObject(container);
  const env = walked['env'];
  if (!Array.isArray(env)) return walked;
  const redacted = redactEnv(env);
  return redacted === env ? walked : { ...walked, env: redacted };
};

/** redactAnnotations: annotations without the last-applied configuration's content. */
const redactAnnotations = (annotations: Record<string, Json>): Record<string, Json> => {
  const applied = annotations[LAST_APPLIED_ANNOTATION];
  return typeof applied === 'string' && applied !== '' && applied !== REDACTED ? { ...annotations, [LAST_APPLIED_ANNOTATION]: REDACTED } : annotations;
};

/** redactObject: `value` walked, each member redacted where the rules say; the same object when nothing changed. */
const redactObject = (value: Record<string, Json>): Record<string, Json> => {
  let result: Record<string, Json> | undefined;
  for (const [key, member] of Object.entries(value)) {
    let redacted: Json;
    if (CONTAINER_LISTS.has(key) && Array.isArray(member)) {
      const containers = member.map(redactContainer);
      redacted = containers.some((container, index) => container !== member[index]) ? containers : member;
    } else if (key === 'annotations' && isPlainObject(member)) {
      redacted = redactAnnotations(member);
    } else {
      redacted = redactTenantData(member);
    }
    if (redacted !== member) {
      result ??= { ...value };
      result[key] = redacted;
    }
  }
  return result ?? value;
};

/**
 * redactTenantData: `value` (a JobSet, Job, Service, an action, or anything holding them) with
 * the tenant data above replaced by REDACTED. Copies only what changes: a value with nothing to
 * redact comes back as the same object. Idempotent.
 */
export const redactTenantData = <T>(value: T): T => {
  if (Array.isArray(value)) {
    const items = value.map((item: Json) => redactTenantData(item));
    return (items.some((item, index) => item !== value[index]) ? items : value) as T;
  }
  return (isPlainObject(value) ? redactObject(value) : value) as T;
};
