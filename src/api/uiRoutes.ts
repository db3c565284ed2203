import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Where `npm run build` puts the dashboard (ui/build.mjs). Resolved from this file so it is the same
 * directory whether Kairos runs from dist/api or, in tests, from src/api.
 */
const DEFAULT_ROOT = fileURLToPath(new URL('../../dist/ui/', import.meta.url));

/**
 * Everything the pages load comes from Kairos itself: no inline script or style, no other host.
 * `connect-src 'self'` covers the same-origin WebSocket of the live feed.
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Built assets carry a content hash in their name, so they never change: cache them for a year. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Only names the build makes: `app-3FQX2ZKD.js`; anything else (`..`, slashes) is not looked up. */
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css|woff2?|ttf|svg|png)$/;
const TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  svg: 'image/svg+xml',
  png: 'image/png',
};

export interface UiRoutesOptions {
  /** Development mode also serves GraphiQL on GET /graphql from a browser. */
  development: boolean;
  /** The built files; default dist/ui of this checkout. */
  root?: string;
}

/** Answers a request when it is for the dashboard (or GraphiQL); resolves false when it is not. */
export type UiHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

/**
 * The dashboard at `/ui/` (a single page; routes live in the URL's hash) and its hashed assets at
 * `/ui/assets/`. Files are read once and kept in memory: the build is a handful of files.
 */
export function uiRoutes(options: UiRoutesOptions): UiHandler {
  const root = options.root ?? DEFAULT_ROOT;
  const cache = new Map<string, Buffer | null>();
  const load = async (name: string): Promise<Buffer | null> => {
    if (!cache.has(name)) cache.set(name, await readFile(root + name).catch(() => null));
    return cache.get(name)!;
  };

  const page = async (res: ServerResponse, name: string): Promise<void> => {
    const html = await load(name);
    if (!html) return sendText(res, 503, 'The dashboard is not built: run `npm run build`.');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', ...securityHeaders() });
    res.end(html);
  };

  return async (req, res, url) => {
    const method = req.method ?? 'GET';
    const path = url.pathname;
    if (options.development && path === '/graphql' && method === 'GET' && wantsHtml(req) && !url.searchParams.has('query')) {
      await page(res, 'graphiql.html');
      return true;
    }
    if (path !== '/ui' && !path.startsWith('/ui/')) return false;
    if (method !== 'GET' && method !== 'HEAD') {
      sendText(res, 405, 'Method not allowed');
      return true;
    }
    if (path === '/ui') {
      res.writeHead(308, { location: '/ui/' });
      res.end();
      return true;
    }
    if (path === '/ui/' || path === '/ui/index.html') {
      await page(res, 'index.html');
      return true;
    }
    const name = path.slice('/ui/assets/'.length);
    const body = path.startsWith('/ui/assets/') && ASSET_NAME.test(name) ? await load(`assets/${name}`) : null;
    if (!body) {
      sendText(res, 404, 'Not found');
      return true;
    }
    res.writeHead(200, { 'content-type': TYPES[name.split('.').pop()!], 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' });
    res.end(method === 'HEAD' ? undefined : body);
    return true;
  };
}

function securityHeaders(): Record<string, string> {
  return {
    'content-security-policy': UI_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  };
}

/** A browser navigating asks for HTML first; API clients do not. */
function wantsHtml(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').split(',')[0].trim().startsWith('text/html');
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}
