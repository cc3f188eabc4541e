/**
 * The simulated API server's refusals, raised as the real gateway raises them
 * (lib/k8s/errors.ts statusToLineupError): the same Lineup error classes and codes, with messages
 * worded like the API server's Status messages after the same `what` prefix, so nothing above
 * the ClusterGateway can tell a simulated refusal from a real one.
 */
import { AlreadyExistsError, InvalidObjectError } from '../errors.ts';
import type { FieldError } from '../errors.ts';

/** SimKind: the kinds of object the simulated API server stores. */
export type SimKind = 'JobSet' | 'Job' | 'Service';

/** The resource (`<plural>.<group>`) an API server names in an AlreadyExists message. */
const RESOURCE: Readonly<Record<SimKind, string>> = { JobSet: 'jobsets.jobset.x-k8s.io', Job: 'jobs.batch', Service: 'services' };
/** The kind (`<Kind>.<group>`) an API server names in an Invalid message. */
const QUALIFIED_KIND: Readonly<Record<SimKind, string>> = { JobSet: 'JobSet.jobset.x-k8s.io', Job: 'Job.batch', Service: 'Service' };

/** alreadyExists: a create found an object of that name (the server's 409 AlreadyExists). */
export const alreadyExists = (kind: SimKind, namespace: string, name: string): AlreadyExistsError =>
  new AlreadyExistsError(`${kind.toLowerCase()} ${namespace}/${name}: ${RESOURCE[kind]} "${name}" already exists`);

/**
 * invalidObject: the server refused a write as invalid (422 Invalid) for these field causes.
 * `what` names the write as the real gateway does ("job ns/name status").
 */
export const invalidObject = (what: string, kind: SimKind, name: string, causes: readonly FieldError[]): InvalidObjectError => {
  const listed = causes.map((cause) => `${cause.path}: ${cause.message}`);
  // apimachinery's aggregate error: one error as it is, several in brackets.
  const detail = listed.length === 1 ? listed[0] : `[${listed.join(', ')}]`;
  return new InvalidObjectError(`${what}: ${QUALIFIED_KIND[kind]} "${name}" is invalid: ${detail}`, causes);
};
