/** Bare node: the process start that every cold start is measured against. */
export {};
