/**
 * Why a kubeconfig gives no cluster to talk to, in the same words from the CLI's reader
 * (lib/k8s/kubeConfigFile.ts) and from the forwarder image's (lib/k8s/staticKubeconfig.ts).
 */

/** KubeconfigMessage: why a kubeconfig file (`--kubeconfig`, $KUBECONFIG, ~/.kube/config) gives no cluster to talk to (exit 2). */
export const KubeconfigMessage = {
  missing: (path: string): string => `kubeconfig ${path}: no such file, expected a kubeconfig (--kubeconfig, $KUBECONFIG or ~/.kube/config)`,
  unreadable: (path: string, detail: string): string => `kubeconfig ${path}: cannot read it: ${detail}`,
  notYaml: (path: string, detail: string): string => `kubeconfig ${path}: not valid YAML: ${detail}`,
  invalid: (path: string, detail: string): string => `kubeconfig ${path}: not a valid kubeconfig: ${detail}`,
  noSuchContext: (path: string, context: string, known: readonly string[]): string =>
    `kubeconfig ${path}: no context ${JSON.stringify(context)}, expected one of: ${known.length > 0 ? known.join(', ') : '(the file defines none)'}`,
  noCurrentContext: (path: string, known: readonly string[]): string =>
    `kubeconfig ${path}: no current-context set and no --context given, expected one of: ${known.length > 0 ? known.join(', ') : '(the file defines none)'}`,
  noCluster: (path: string, context: string, cluster: string): string =>
    `kubeconfig ${path}: context ${JSON.stringify(context)} names cluster ${JSON.stringify(cluster)}, which the file does not define`,
  noUser: (path: string, context: string, user: string): string =>
    `kubeconfig ${path}: context ${JSON.stringify(context)} names user ${JSON.stringify(user)}, which the file does not define`,
  /** The forwarder image reads static credentials only (its bundle carries no exec or auth-provider support). */
  unsupportedAuth: (path: string, user: string, method: string): string =>
    `kubeconfig ${path}: user ${JSON.stringify(user)} authenticates by ${method}, which the forwarder image does not run, expected a token, token file or client certificate (or run lineup forward from the CLI)`,
} as const;
