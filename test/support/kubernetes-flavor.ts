/**
 * Import FIRST in a test file whose servers speak the kubernetes flavor: it
 * fixes this process's naming table before any server module loads (node:test
 * runs each file in its own process, so other files keep the orch flavor).
 */
import { API_FLAVOR_ENV } from '../../src/naming/flavor.ts';

process.env[API_FLAVOR_ENV] = 'kubernetes';
