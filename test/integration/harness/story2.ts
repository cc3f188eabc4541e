/**
 * KEP-104 story 2 (messagequeue → driver → worker, InOrder) as upstream's controller takes it on
 * the harness's control plane: the example JobSet without spec.managedBy, with the fields
 * upstream's mutating webhook would default written out (upstream runs without its webhooks
 * here), and every pod template annotated with the behaviour kwok gives its pods
 * (controlPlane.ts). One builder for the upstream test (test/integration/upstream/) and the
 * pipeline benchmark (bench/pipeline/story.ts).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { isObject, type JsonObject } from '../../../lib/json.ts';
import { repoPath } from '../../repoFiles.ts';
import { podAnnotations, type PodBehaviour } from './controlPlane.ts';

/** STORY2_EXAMPLE: the example JobSet of story 2, relative to the repository. */
export const STORY2_EXAMPLE = 'examples/story2-messagequeue-driver-worker.yaml';

/**
 * story2Manifest: story 2 without managedBy and with upstream's webhook defaults, its pods
 * behaving as `behaviour` says. Its metadata is the example's; callers name and place it.
 */
export const story2Manifest = (behaviour: PodBehaviour): JsonObject => {
  const manifest: unknown = parse(readFileSync(repoPath(STORY2_EXAMPLE), 'utf8'));
  if (!isObject(manifest) || !isObject(manifest.spec) || !Array.isArray(manifest.spec.replicatedJobs)) throw new Error(`${STORY2_EXAMPLE} is not a JobSet`);
  const { managedBy: _managedBy, ...spec } = manifest.spec;
  const behaviourAnnotations = podAnnotations(behaviour);
  return {
    ...manifest,
    spec: {
      ...spec,
      // What upstream's mutating webhook (pkg/webhooks/jobset_webhook.go Default) would add.
      successPolicy: { operator: 'All' },
      network: { enableDNSHostnames: true, publishNotReadyAddresses: true },
      replicatedJobs: (spec.replicatedJobs as JsonObject[]).map((rjob) => {
        const template = rjob.template as JsonObject;
        const jobSpec = template.spec as JsonObject;
        const podTemplate = jobSpec.template as JsonObject;
        const podSpec = podTemplate.spec as JsonObject;
        const podMetadata = isObject(podTemplate.metadata) ? podTemplate.metadata : {};
        const annotations = isObject(podMetadata.annotations) ? podMetadata.annotations : {};
        const metadata = { ...podMetadata, annotations: { ...annotations, ...behaviourAnnotations } };
        return {
          ...rjob,
          template: {
            ...template,
            spec: { ...jobSpec, completionMode: 'Indexed', template: { ...podTemplate, metadata, spec: { restartPolicy: 'OnFailure', ...podSpec } } },
          },
        };
      }),
    },
  };
};
