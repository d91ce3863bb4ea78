#!/usr/bin/env node
'use strict';
// The same CLI as a kubectl plugin: kubectl runs `kubectl-karpenter_doctor` for `kubectl karpenter-doctor …`.
require('./node-check.js').start('kubectl karpenter-doctor');
