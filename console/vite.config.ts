import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The console is a static bundle Baton serves at `/`: no CDN, no outside fonts.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
});
