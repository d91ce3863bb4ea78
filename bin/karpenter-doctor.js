#!/usr/bin/env node
'use strict';
// The CLI: runs the JavaScript compiled by `npm run build` (dist/cli.js) after checking the Node.js version.
require('./node-check.js').start('karpenter-doctor');
