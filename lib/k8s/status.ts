/**
 * metav1.Status: the body the API server sends with every error answer, and in a watch's ERROR
 * event. Read by the REST client (lib/k8s/rest.ts), which keeps it on its errors, and by the
 * error mapping (lib/k8s/errors.ts), which branches on its reason.
 */
import * as z from 'zod';

/** KubeStatusSchema: metav1.Status, the body the API server sends with every error answer. */
export const KubeStatusSchema = z.looseObject({
  kind: z.string().optional(),
  status: z.string().optional(),
  message: z.string().optional(),
  reason: z.string().optional(),
  code: z.number().int().optional(),
  details: z
    .looseObject({
      name: z.string().optional(),
      kind: z.string().optional(),
      causes: z.array(z.looseObject({ reason: z.string().optional(), message: z.string().optional(), field: z.string().optional() })).optional(),
    })
    .optional(),
});
export type KubeStatus = z.infer<typeof KubeStatusSchema>;

/** StatusReason: the metav1.StatusReason values Lineup tells apart. */
export const StatusReason = {
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Expired: 'Expired',
  Gone: 'Gone',
} as const;

/** parseStatus: a Status from a body that is JSON text or an object (watch event); undefined when it is neither. */
export const parseStatus = (body: unknown): KubeStatus | undefined => {
  let value = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body) as unknown;
    } catch {
      return undefined;
    }
  }
  const parsed = KubeStatusSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
};
