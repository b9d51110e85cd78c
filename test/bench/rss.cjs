// Preloaded by speed.mjs: reports the process's peak resident memory (KB) and CPU time (user + system, µs) on exit.
process.on('exit', () => {
  const cpu = process.cpuUsage();
  process.stderr.write(`maxrss=${process.resourceUsage().maxRSS} cpu=${cpu.user + cpu.system}\n`);
});
