// Preloaded by speed.mjs: reports the process's peak resident memory on exit (KB).
process.on('exit', () => process.stderr.write(`maxrss=${process.resourceUsage().maxRSS}\n`));
