/**
 * Test-only fault injection at named steps of a write, so tests can kill a writer at
 * exactly the step they mean instead of hoping a random kill lands there. Inert unless
 * the environment asks for it (the variables are read at each step; nothing else is):
 *
 * - `CONTEXT_LEDGER_TEST_CRASH_AT=<step>`: the process kills itself (SIGKILL, like a
 *   power cut or `kill -9`: no cleanup runs) when it reaches `<step>`.
 * - `CONTEXT_LEDGER_TEST_PAUSE_AT=<step>:<ms>`: it stops for `<ms>` there, which widens
 *   a race window for a test to hit it every time.
 */
export function faultPoint(step: string): void {
  const crash = process.env.CONTEXT_LEDGER_TEST_CRASH_AT;
  if (crash !== undefined && crash === step) process.kill(process.pid, 'SIGKILL');
  const pause = process.env.CONTEXT_LEDGER_TEST_PAUSE_AT;
  if (pause !== undefined && pause.startsWith(`${step}:`)) {
    // A synchronous sleep: the step's caller must not yield to other work meanwhile.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(pause.slice(step.length + 1)));
  }
}
