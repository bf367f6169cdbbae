#!/usr/bin/env node
'use strict';
// Thin launcher for the `zonewise` command; the compiled CLI lives in dist/ (npm run build).
let cli;
try {
  cli = require('../dist/apps/cli/main.js');
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).includes('dist/apps/cli/main.js')) {
    process.stderr.write('zonewise: not built yet; run `npm run build` first\n');
    process.exit(1);
  }
  throw error;
}
cli.run(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
