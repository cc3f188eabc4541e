/**
 * Errors the simulated API server raises where a real one answers with a status code.
 * lib/errors.ts has no code for AlreadyExists or Invalid, so these reuse the nearest existing
 * codes (see each class) rather than changing the shared contract.
 */
import { ConflictError, ErrorCode, LineupError } from '../errors.ts';

/**
 * AlreadyExistsError: a create named an object that exists. Kubernetes answers 409 Conflict
 * with reason AlreadyExists, so this is a ConflictError: a caller that re-reads and re-plans
 * on STALE_RESOURCE_VERSION recovers from it the same way.
 */
export class AlreadyExistsError extends ConflictError {
  readonly kind: string;
  readonly objectName: string;
  constructor(kind: string, namespace: string, name: string) {
    super(`${kind.toLowerCase()} ${namespace}/${name} already exists`);
    this.kind = kind;
    this.objectName = name;
  }
}

/**
 * InvalidObjectError: the simulated API server refused a write that breaks a rule a real one
 * enforces (422 Invalid), e.g. a Job status the 1.32+ status validation rejects. Its code is
 * INVALID_INPUT: the write was input the server cannot accept.
 */
export class InvalidObjectError extends LineupError {
  readonly violations: readonly string[];
  constructor(what: string, violations: readonly string[]) {
    super(ErrorCode.INVALID_INPUT, `${what} is invalid: ${violations.join('; ')}`);
    this.violations = violations;
  }
}
