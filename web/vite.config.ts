import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The dashboard (docs/dashboard.md). Built into web/dist, which the API serves under /app/
 * (api/dashboard.ts); `npm run dev:web` serves it with hot reload and proxies the API routes to a
 * running API (DEV_API_URL, default http://localhost:3000), so the session cookie stays same-origin.
 */
const api = process.env.DEV_API_URL ?? 'http://localhost:3000';
const API_PREFIXES = ['/auth', '/users', '/projects', '/config', '/contacts', '/domains', '/templates', '/brand', '/campaigns', '/segments', '/workflows', '/events', '/activity', '/analytics', '/settings', '/webhook-endpoints', '/api-keys', '/forms', '/f/', '/pages.css', '/uploads', '/v1', '/openapi.json', '/health'];

export default defineConfig({
  root: __dirname,
  base: '/app/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    // The polyfill would be an inline script, which the CSP refuses; every supported browser has modulepreload.
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 800,
  },
  server: {
    port: Number(process.env.DEV_WEB_PORT ?? 5173),
    // The browser's Origin (this dev server) passes through: the API must list it in DASHBOARD_ORIGINS (docs/dashboard.md).
    proxy: Object.fromEntries(API_PREFIXES.map((p) => [p, { target: api, changeOrigin: true }])),
  },
});
