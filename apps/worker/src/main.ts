import { runWorkerOrExit } from './worker-process.js';

runWorkerOrExit();
