/**
 * readKubeconfig: the CLI's KubeconfigReader — a user's kubeconfig as kubectl reads it, every auth
 * method included, through client-node's KubeConfig (lib/k8s/kubeConfigFile.ts). client-node is
 * loaded by a dynamic import on the first read, so only a process that reads a kubeconfig pays
 * for it; this module is imported by CLI code only (never by a Lambda or the forwarder bundle).
 */
import type { KubeconfigReader } from './auth.ts';

export const readKubeconfig: KubeconfigReader = async (path, context) => (await import('./kubeConfigFile.ts')).readKubeconfigEndpoint(path, context);
