/**
 * The boundary between the REST client's errors and Lineup's: a KubeHttpError (or a Status
 * object in a watch ERROR event) becomes the Lineup error callers branch on by code (STYLE:
 * adapters turn Kubernetes errors into Lineup errors at the boundary).
 */
import {
  AlreadyExistsError,
  ConflictError,
  ForbiddenError,
  InvalidObjectError,
  LineupError,
  NotFoundError,
  UnauthenticatedError,
  UnavailableError,
  WatchExpiredError,
} from '../errors.ts';
import type { FieldError } from '../errors.ts';
import { KubeHttpError } from './rest.ts';
import { StatusReason } from './status.ts';
import type { KubeStatus } from './status.ts';

export { KubeStatusSchema, parseStatus, StatusReason, type KubeStatus } from './status.ts';

/**
 * httpStatusOf: the HTTP status of a failed request: KubeHttpError.statusCode, or the numeric
 * `statusCode` another HTTP error carries; undefined for transport failures.
 */
export const httpStatusOf = (error: unknown): number | undefined => {
  if (error instanceof KubeHttpError) return error.statusCode;
  if (error !== null && typeof error === 'object' && 'statusCode' in error && typeof error.statusCode === 'number') return error.statusCode;
  return undefined;
};

/** kubeStatusOf: the Status the server sent with a failed request, when it sent one. */
export const kubeStatusOf = (error: unknown): KubeStatus | undefined => (error instanceof KubeHttpError ? error.status : undefined);

/** headerOf: a response header of a failed request (header names compared case-insensitively). */
export const headerOf = (error: unknown, name: string): string | undefined => {
  if (!(error instanceof KubeHttpError)) return undefined;
  const wanted = name.toLowerCase();
  const value = Object.entries(error.headers).find(([key]) => key.toLowerCase() === wanted)?.[1];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * retryAfterMs: the wait a failed request's Retry-After header asks for — delay-seconds or an HTTP
 * date (RFC 9110 §10.2.3) — or undefined when there is none or it does not parse.
 */
export const retryAfterMs = (error: unknown, now: number): number | undefined => {
  const value = (error instanceof KubeHttpError ? error.retryAfter : undefined)?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
};

/** describeError: one line for a failed request — the server's Status message when it sent one, else the error's own. */
export const describeError = (error: unknown): string => {
  const code = httpStatusOf(error);
  const status = kubeStatusOf(error);
  if (code !== undefined) return `HTTP ${code}${status?.reason ? ` ${status.reason}` : ''}${status?.message ? `: ${status.message}` : ''}`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
};

/**
 * NO_FIELD: how apimachinery writes a cause's nil field path. The CRD validator sends such a cause
 * beside the real ones ("some validation rules were not checked because the object was invalid"):
 * a notice about its own work, not a field of the object that is wrong.
 */
const NO_FIELD = '<nil>';

/**
 * fieldCauses: the Status's field causes as Lineup FieldErrors (422 Invalid lists one per broken
 * rule). Causes that name no field are left out; the error's message still carries their text.
 */
export const fieldCauses = (status: KubeStatus | undefined): FieldError[] =>
  (status?.details?.causes ?? [])
    .filter((cause) => cause.field !== undefined && cause.field !== '' && cause.field !== NO_FIELD)
    .map((cause) => ({ path: cause.field ?? '', message: cause.message ?? cause.reason ?? '' }));

/**
 * statusToLineupError: the Lineup error for an HTTP status and its Status body. `what` names the
 * object ("job ns/name") and starts the message, so logs say which write failed.
 */
export const statusToLineupError = (code: number, status: KubeStatus | undefined, what: string, cause: unknown, now: number = Date.now()): LineupError => {
  const message = `${what}: ${status?.message ?? `HTTP ${code}`}`;
  const options = { cause };
  if (code === 409 && status?.reason === StatusReason.AlreadyExists) return new AlreadyExistsError(message, options);
  if (code === 409) return new ConflictError(message, undefined, options);
  if (code === 404) return new NotFoundError(message, options);
  if (code === 401) return new UnauthenticatedError(message, options);
  if (code === 403) return new ForbiddenError(message, options);
  if (code === 410) return new WatchExpiredError(message, options);
  // 400 is the server refusing the request itself (a malformed patch): as final as 422.
  if (code === 422 || code === 400) return new InvalidObjectError(message, fieldCauses(status), options);
  // 429 and 5xx: "not now", with the wait the server asked for, for the layer that retries.
  return new UnavailableError(message, { ...options, retryAfterMs: retryAfterMs(cause, now) });
};

/**
 * toLineupError: any error of a Kubernetes request as a Lineup error. Lineup errors pass through
 * (withRetry's UnavailableError); HTTP errors map by status and reason (statusToLineupError);
 * anything else is a transport failure (UnavailableError).
 */
export const toLineupError = (error: unknown, what: string): LineupError => {
  if (error instanceof LineupError) return error;
  const code = httpStatusOf(error);
  if (code !== undefined) return statusToLineupError(code, kubeStatusOf(error), what, error);
  return new UnavailableError(`${what}: request failed: ${describeError(error)}`, { cause: error });
};
