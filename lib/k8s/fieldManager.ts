/**
 * The fieldManager of Lineup's writes: the gateway (lib/k8s/gateway.ts) sends it with every
 * write, and the forwarder finds it in managedFields to tell Lineup's own writes from others'
 * (lib/forwarder/ownWrites.ts).
 */

/** fieldManager Lineup's writes record in managedFields. */
export const KUBE_FIELD_MANAGER = 'lineup';
