/** The ownerReference that makes the JobSet the controller of what Lineup creates for it. */
import { JOBSET_API_VERSION, JOBSET_KIND } from '../jobset/api.ts';
import type { JobSet, OwnerReference } from '../jobset/schema.ts';

/** controllerReference: the ownerReference upstream puts on Jobs, the Service and claims it deletes with the JobSet (SetControllerReference). */
export const controllerReference = (jobSet: JobSet): OwnerReference => ({
  apiVersion: JOBSET_API_VERSION,
  kind: JOBSET_KIND,
  name: jobSet.metadata.name ?? '',
  uid: jobSet.metadata.uid ?? '',
  controller: true,
  blockOwnerDeletion: true,
});
