import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { BUILTIN_HANDLERS } from './builtins.js';
import type { Handler, HandlerRegistry } from './handler.js';

/**
 * The built-in handlers plus those exported as `handlers` (an object or a Map of name → function)
 * by the module at `modulePath`, resolved from the working directory. Throws naming the module when
 * it does not load or exports something else.
 */
export async function loadHandlers(modulePath: string | null): Promise<HandlerRegistry> {
  if (!modulePath) return BUILTIN_HANDLERS;
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(path.resolve(modulePath)).href)) as { handlers?: unknown }).handlers;
  } catch (error) {
    throw new Error(`HANDLERS_MODULE ${modulePath} could not be loaded: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const entries =
    exported instanceof Map ? [...exported.entries()] : exported && typeof exported === 'object' ? Object.entries(exported) : null;
  if (!entries) throw new Error(`HANDLERS_MODULE ${modulePath} must export \`handlers\`, an object of name → async function`);
  const registry = new Map<string, Handler>(BUILTIN_HANDLERS);
  for (const [name, handler] of entries) {
    if (typeof name !== 'string' || typeof handler !== 'function') {
      throw new Error(`HANDLERS_MODULE ${modulePath}: handler "${String(name)}" is not a function`);
    }
    registry.set(name, handler as Handler);
  }
  return registry;
}
