/** Messages between a worker and the child process running one CPU_BOUND attempt (over the IPC channel). */
export type ToChild =
  | { type: 'run'; handler: string; handlersModule: string | null; payload: unknown; executionId: string; attempt: number }
  | { type: 'abort'; message: string };

export type FromChild = { type: 'result'; ok: true; value: unknown } | { type: 'result'; ok: false; error: string };
