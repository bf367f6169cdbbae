import { Agent, StartupError } from './agent.js';
import { ConfigError, parseAgentConfig } from './config.js';
import { createLogger } from './logger.js';

/**
 * `node dist/apps/agent/main.js [flags]`: the zonewise cluster agent. Exit codes: 0 after a clean
 * shutdown (SIGTERM/SIGINT), 2 for bad configuration (a message naming each bad setting), 1 otherwise.
 */

const EXIT_BAD_CONFIG = 2;
const EXIT_FAILURE = 1;

export async function main(argv: readonly string[]): Promise<number> {
  let config;
  try {
    config = parseAgentConfig(argv);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`zonewise-agent: ${error.message}\n`);
    return EXIT_BAD_CONFIG;
  }
  if (config === null) return 0; // --help

  const logger = createLogger(config.logLevel);
  let agent: Agent;
  try {
    agent = await Agent.create(config, logger);
    await agent.start();
  } catch (error) {
    const bad = error instanceof StartupError || (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    logger.fatal({ error: (error as Error).message }, 'cannot start');
    process.stderr.write(`zonewise-agent: ${(error as Error).message}\n`);
    return bad ? EXIT_BAD_CONFIG : EXIT_FAILURE;
  }

  return new Promise<number>((resolve) => {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        logger.warn({ signal }, 'second signal: exiting at once');
        process.exit(EXIT_FAILURE);
      }
      signalled = true;
      logger.info({ signal }, 'signal received');
      agent.shutdown().then(
        () => resolve(0),
        (error: unknown) => {
          logger.error({ error: (error as Error).message }, 'shutdown failed');
          resolve(EXIT_FAILURE);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`zonewise-agent: internal error: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(EXIT_FAILURE);
    },
  );
}
