'use strict';
// The addon built at install (node-gyp, from reuseport.c): listen(host, port, backlog) -> fd.
module.exports = require('./build/Release/reuseport.node');
