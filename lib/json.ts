/**
 * Telling a JSON object from the other values a parsed document, an API answer or a recorded
 * event can hold. One definition for the product, the tests and the benchmarks, so all of them
 * agree that an array and null are not objects.
 */

/** JsonObject: a parsed JSON object whose fields are not yet checked. */
export type JsonObject = Record<string, unknown>;

/** isObject: `value` is a JSON object — not null, not an array, not a primitive. */
export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
