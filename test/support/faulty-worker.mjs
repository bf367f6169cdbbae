// The worker process with a fault installed through its commit hooks (apps/worker/src/commit-hooks.ts),
// to prove a worker killed at the worst moments loses and duplicates nothing. startApp runs this file
// instead of dist/apps/worker/main.js when the environment names a fault:
//   WORKER_FAULT=kill-after-commit       SIGKILL itself right after a snapshot's transaction commits
//   WORKER_FAULT=hold-before-commit:<ms> hold each write transaction open this long before it commits
import { setTimeout as sleep } from 'node:timers/promises';
import workerConfig from '../../dist/apps/worker/config.js';
import workerProcess from '../../dist/apps/worker/worker-process.js';

const fault = process.env.WORKER_FAULT ?? '';
const held = /^hold-before-commit:(\d+)$/.exec(fault);
let config;
try {
  config = workerConfig.loadWorkerConfig();
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
if (fault === 'kill-after-commit') {
  workerProcess.runWorkerOrExit({ config, commitHooks: { afterCommit: () => process.kill(process.pid, 'SIGKILL') } });
} else if (held) {
  const ms = Number(held[1]);
  // The held transaction must outlive the hold: its timeout grows by it.
  const longer = { ...config, WORKER_TX_TIMEOUT_MS: config.WORKER_TX_TIMEOUT_MS + ms };
  workerProcess.runWorkerOrExit({ config: longer, commitHooks: { beforeCommit: () => sleep(ms) } });
} else {
  console.error(`WORKER_FAULT: expected kill-after-commit or hold-before-commit:<ms>, got "${fault}"`);
  process.exit(2);
}
