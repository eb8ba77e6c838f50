// Loaded into every test file's process (the runner passes its --import to them).
//
// Why: with --test-force-exit, Node's test runner calls process.exit() in each
// test file's child as soon as its last test ends, and the results still on
// their way to the parent (serialized test events, written to the stdout
// pipe) can be cut off: the parent then reports fewer tests than ran, and a
// lost verdict may be a failure (nodejs/node#64833, open). Measured here: 1,426
// to 1,454 tests reported over six runs of the same 29 files.
//
// So in a child the runner's exit waits for those writes to drain (a few
// event-loop turns at most), and still happens, after at most two seconds,
// when something keeps the loop busy: force-exit keeps its point, a test file
// that leaves a handle open does not hang the run. Any other caller of
// process.exit (code under test) exits at once, as always.
if (process.env.NODE_TEST_CONTEXT !== undefined) {
  const exit = process.exit.bind(process);
  let exiting = false;
  process.exit = (code) => {
    if (exiting || !/internal\/test_runner\//.test(new Error().stack ?? '')) return exit(code);
    exiting = true;
    if (code !== undefined) process.exitCode = code;
    const deadline = Date.now() + 2000;
    let quietTurns = 0;
    const wait = () => {
      // Quiet: nothing left in stdout's buffer for a few turns in a row (the runner's own stream writes on later turns).
      quietTurns = process.stdout.writableLength === 0 ? quietTurns + 1 : 0;
      if (quietTurns >= 5 || Date.now() > deadline) exit(process.exitCode);
      else setImmediate(wait);
    };
    setImmediate(wait);
    return undefined;
  };
}
