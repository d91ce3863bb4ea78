'use strict';
// Plain CommonJS that any Node.js version can run, so an old Node gets a clear message, not a syntax error.

/**
 * The problem with running on Node `version` when package.json asks for `range` (">=X.Y[.Z]"), or
 * undefined when there is none.
 */
function nodeProblem(version, range) {
  var wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(String(range).trim());
  if (!wanted) return undefined;
  var have = String(version).replace(/^v/, '').split('.').map(Number);
  for (var i = 0; i < 3; i++) {
    var need = Number(wanted[i + 1] || 0);
    var got = have[i] || 0;
    if (got > need) return undefined;
    if (got < need) {
      return (
        'needs Node.js ' + range + ' but this is Node.js ' + version + '; install a newer Node.js (https://nodejs.org)'
      );
    }
  }
  return undefined;
}

/** Runs the compiled CLI under `name` after checking the Node.js version against package.json. */
function start(name) {
  var pkg = require('../package.json');
  var problem = nodeProblem(process.versions.node, pkg.engines.node);
  if (problem) {
    process.stderr.write('karpenter-doctor: ' + problem + '\n');
    process.exit(2);
  }
  var cli;
  try {
    cli = require('../dist/cli.js');
  } catch (error) {
    if (error && error.code === 'MODULE_NOT_FOUND' && String(error.message).indexOf('dist') !== -1) {
      process.stderr.write('karpenter-doctor: the CLI is not built: run npm run build (npm ci and npm pack run it)\n');
      process.exit(3);
    }
    throw error;
  }
  cli.run(name);
}

module.exports = { nodeProblem: nodeProblem, start: start };
