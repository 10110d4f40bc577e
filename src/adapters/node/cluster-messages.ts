/**
 * What the primary and its workers tell each other: the `restmachine:*` messages over the
 * cluster's IPC channel, and the environment variables the primary gives a replacement worker.
 */

export const SHUTDOWN = 'restmachine:shutdown';
// What a replacement worker passes to listen(), and the port it must end up on. Node's cluster
// shares a listening socket among the workers that ask for the same address and port: with
// `port: 0` a replacement asks for 0 too while other workers listen, and so joins their socket
// (asking for the concrete port would be another socket, and EADDRINUSE). Once no worker
// listens, Node has closed that socket, and a port-0 replacement would pick a new free port, so
// the cluster's `url` would lead nowhere: it asks for the concrete port instead.
export const LISTEN_PORT = 'RESTMACHINE_CLUSTER_LISTEN_PORT';
export const CLUSTER_PORT = 'RESTMACHINE_CLUSTER_PORT';
export const STARTUP_FAILED = 'restmachine:startup-failed';
// A worker tells the primary the port its application's server listens on. The cluster's
// 'listening' event would not do: it fires for every server a worker opens, and a startup
// handler may open one of its own first (a metrics endpoint on another port), whose port would
// then become the cluster's.
export const LISTENING = 'restmachine:listening';

export interface StartupFailed {
  type: typeof STARTUP_FAILED;
  message: string;
}

/** Whether `message` is an object whose `type` is `type` (its other fields are not checked). */
function hasType(message: unknown, type: string): boolean {
  return (
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type
  );
}

export function isStartupFailed(message: unknown): message is StartupFailed {
  return hasType(message, STARTUP_FAILED);
}

export interface Listening {
  type: typeof LISTENING;
  port: number;
}

export function isListening(message: unknown): message is Listening {
  return hasType(message, LISTENING) && typeof (message as Listening).port === 'number';
}
