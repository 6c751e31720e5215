/** `quire-worker [--stages a.b,c.d]`: a process that only runs pipeline stages (no HTTP host loaded). */
import { runMain, workerCommand } from './commands.js';

runMain('quire-worker', (config) => workerCommand(config, process.argv.slice(2)));
