#!/usr/bin/env node
'use strict';
// Runs the TypeScript CLI in place: no build step, so `npx karpenter-doctor` always runs the checked-out source.
require('tsx/cjs');
require('./cli/main.ts')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
