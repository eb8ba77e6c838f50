/**
 * The no-uWS test leg: `.ci/run` runs the integration tests that need no
 * uWebSockets.js again on a current Node (the uWS build we load exists for
 * Node 20 only) with ORCH_TEST_NO_UWS=1. Servers then start with
 * `--uws-port=0`, and the cases that talk to the uWS listener are skipped
 * with this reason.
 */
export const UWS_DISABLED = process.env['ORCH_TEST_NO_UWS'] === '1';

/** A `skip` option for node:test: false normally, the reason on the no-uWS leg. */
export const SKIP_WITHOUT_UWS: string | false = UWS_DISABLED ? 'the no-uWS leg (ORCH_TEST_NO_UWS=1) serves the secure port alone' : false;

/** The `--uws-port` value a test server should get: the given port, or 0 on the no-uWS leg. */
export function uwsPortArg(port: number): number {
  return UWS_DISABLED ? 0 : port;
}
