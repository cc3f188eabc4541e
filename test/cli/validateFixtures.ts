/** YAML fixtures for lineup validate's tests (validate.test.ts, validate.process.test.ts): only what each case is about differs. */

export const rjob = (name: string, extra = ''): string =>
  `  - name: ${name}\n${extra}    template:\n      spec:\n        template:\n          spec:\n            containers: [{name: main, image: busybox}]\n`;

export const jobSetYaml = (name: string, rjobs: readonly string[], options: { annotations?: string; spec?: string } = {}): string =>
  `apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: ${name}\n${options.annotations ?? ''}spec:\n  managedBy: lineup.dev/controller\n${options.spec ?? ''}  replicatedJobs:\n${rjobs.join('')}`;

export const dependsOn = (...items: readonly string[]): string => `    dependsOn: [${items.join(', ')}]\n`;

/** examplesValid: every file's `FILE: valid: …` line, in order, each with what the JobSet makes. */
export const examplesValid = (files: readonly string[]): RegExp =>
  new RegExp(`^${files.map((f) => `${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: valid: \\d+ replicatedJobs?, \\d+ Jobs?, \\d+ Pods?\\n`).join('')}$`);
