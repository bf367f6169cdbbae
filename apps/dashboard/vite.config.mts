import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The dashboard is built into dist/dashboard, which the API serves at `/`. Pages and the chart library
 * are separate chunks loaded on demand, so the first page stays small.
 */
export default defineConfig({
  root: here,
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // Which chunks each page needs: the bench measures the first page's initial script from it.
    manifest: true,
    chunkSizeWarningLimit: 800,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:3000' } },
});
